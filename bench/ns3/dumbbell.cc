// ns-3 counterpart of scenarios/dumbbell-<cc>-<N>.toml, for bench/run.
//
// N senders, each behind its own access link (1 Gbit/s, 1 ms), share one
// bottleneck (100 Mbit/s, 20 ms one way) whose only buffer is a
// 2000-packet FIFO queue disc in front of a one-packet device queue; each
// receiver sits behind its own egress link (1 Gbit/s, 1 ms). One BulkSend
// per sender, one PacketSink per receiver, MSS 1448, SACK and timestamps.
//
// Settings that differ from ns-3's defaults, chosen to match Linux and
// rtac's model (bench/README.md explains each):
//   TcpSocket::SegmentSize        536   -> 1448
//   TcpSocket::SndBufSize/RcvBuf  128 KB -> 8388480 B (65535 << 7: window
//                                 scale 7 and the same maximum window as
//                                 rtac's receiver with controller "none")
//   TcpSocket::DelAckTimeout      200 ms -> 40 ms (Linux TCP_DELACK_MIN)
//   TcpSocketBase::MinRto         1 s   -> 200 ms (Linux TCP_RTO_MIN)
//   TcpSocketBase::ClockGranularity 1 ms -> 200 ms, so that
//                                 RTO = srtt + max(200 ms, 4 rttvar) as Linux
//   CUBIC: ns3::TcpCubic (default); Reno: ns3::TcpLinuxReno (Linux's
//   ssthresh = cwnd/2 and byte counting; ns3::TcpNewReno with --cc=newreno)
//   Device queues 1 packet, FIFO queue discs of the scenario's sizes.
//
// Prints one line "RESULT {json}" with goodput over [measureFrom, end) at
// the sinks, the bottleneck's mean queueing delay (from entering the FIFO
// to the start of transmission, for packets that start in the window, as
// rtac measures it), drops in the window and over the whole run, Jain's
// index, data segments sent, retransmissions, timeouts, and the wall time
// of Simulator::Run().
//
// Build (bench/run does it):
//   g++ -O2 -std=c++17 dumbbell.cc -o dumbbell -Wl,--no-as-needed
//       -lns3-core -lns3-network -lns3-internet -lns3-point-to-point
//       -lns3-traffic-control -lns3-applications

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <deque>
#include <unordered_set>
#include <vector>

using namespace ns3;

namespace
{

struct FlowStats
{
    uint64_t rxBytesWindow = 0;
    uint64_t rxBytesTotal = 0;
    uint64_t dataSent = 0;
    uint64_t retransmits = 0;
    uint64_t timeouts = 0;
    uint64_t recoveries = 0;
    uint32_t highTx = 0;
    bool anySent = false;
    std::shared_ptr<std::ofstream> cwndLog;
    std::shared_ptr<std::ofstream> stateLog;
    std::shared_ptr<std::ofstream> inflightLog;
    // With --traceDir: sequence numbers this flow has retransmitted.
    std::unordered_set<uint32_t> retransmitted;
};

struct Stats
{
    Time measureFrom;
    Time end;
    uint16_t basePort = 5000;
    std::vector<FlowStats> flows;
    // Enqueue times of the packets in the bottleneck's FIFO queue disc and
    // one-packet device queue, oldest first. Both are FIFOs that drop only
    // on arrival, so packets start transmission in this order. (Packet uids
    // cannot key them: TCP segments cut from one application write share
    // their uid.)
    std::deque<int64_t> enq;
    uint64_t sojournCount = 0;
    double sojournSumMs = 0;
    std::vector<uint64_t> sojournHist; // 100 us bins, for the p95
    uint64_t dropsWindow = 0;
    uint64_t dropsTotal = 0;
    uint64_t devDrops = 0;
    // Drops in the access and egress links' FIFOs (a sender's own bursts).
    uint64_t edgeDrops = 0;
    uint64_t txWindow = 0;
    uint64_t txBytesWindow = 0;
    std::shared_ptr<std::ofstream> queueLog;
    std::shared_ptr<std::ofstream> dropLog;
};

Stats g;

void
OnSinkRx(uint32_t f, Ptr<const Packet> p, const Address&)
{
    auto& fs = g.flows[f];
    fs.rxBytesTotal += p->GetSize();
    if (Simulator::Now() >= g.measureFrom)
    {
        fs.rxBytesWindow += p->GetSize();
    }
}

void
OnQdiscEnqueue(Ptr<const QueueDiscItem>)
{
    g.enq.push_back(Simulator::Now().GetNanoSeconds());
}

void
OnQdiscDrop(Ptr<const QueueDiscItem> item)
{
    g.dropsTotal++;
    if (Simulator::Now() >= g.measureFrom)
    {
        g.dropsWindow++;
    }
    if (g.dropLog)
    {
        // time, flow, sequence number, 1 if a retransmission was dropped
        Ptr<Packet> c = item->GetPacket()->Copy();
        TcpHeader th;
        c->PeekHeader(th);
        uint32_t f = th.GetDestinationPort() - g.basePort;
        uint32_t seq = th.GetSequenceNumber().GetValue();
        bool retx = f < g.flows.size() && g.flows[f].retransmitted.count(seq) > 0;
        *g.dropLog << Simulator::Now().GetSeconds() << "," << f << "," << seq << "," << retx << "\n";
    }
}

void
OnDeviceDrop(Ptr<const Packet>)
{
    g.devDrops++;
}

void
OnEdgeDrop(Ptr<const QueueDiscItem>)
{
    g.edgeDrops++;
}

void
OnEdgeDeviceDrop(Ptr<const Packet>)
{
    g.edgeDrops++;
}

void
HookEdge(const NetDeviceContainer& devs, const QueueDiscContainer& qdiscs)
{
    for (uint32_t i = 0; i < qdiscs.GetN(); i++)
    {
        qdiscs.Get(i)->TraceConnectWithoutContext("Drop", MakeCallback(&OnEdgeDrop));
    }
    for (uint32_t i = 0; i < devs.GetN(); i++)
    {
        Ptr<PointToPointNetDevice> d = DynamicCast<PointToPointNetDevice>(devs.Get(i));
        d->GetQueue()->TraceConnectWithoutContext("Drop", MakeCallback(&OnEdgeDeviceDrop));
    }
}

void
OnBottleneckTxBegin(Ptr<const Packet> p)
{
    NS_ABORT_MSG_IF(g.enq.empty(), "bottleneck transmits a packet that was never enqueued");
    int64_t now = Simulator::Now().GetNanoSeconds();
    int64_t sojourn = now - g.enq.front();
    g.enq.pop_front();
    if (Simulator::Now() >= g.measureFrom)
    {
        g.sojournCount++;
        g.sojournSumMs += sojourn / 1e6;
        size_t bin = static_cast<size_t>(sojourn / 100000);
        if (bin >= g.sojournHist.size())
        {
            g.sojournHist.resize(bin + 1, 0);
        }
        g.sojournHist[bin]++;
        g.txWindow++;
        g.txBytesWindow += p->GetSize();
    }
}

void
OnTcpTx(uint32_t f, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (p->GetSize() == 0)
    {
        return;
    }
    auto& fs = g.flows[f];
    fs.dataSent++;
    uint32_t seq = h.GetSequenceNumber().GetValue();
    uint32_t end = seq + p->GetSize();
    if (fs.anySent && int32_t(seq - fs.highTx) < 0)
    {
        fs.retransmits++;
        if (g.dropLog)
        {
            fs.retransmitted.insert(seq);
        }
    }
    if (!fs.anySent || int32_t(end - fs.highTx) > 0)
    {
        fs.highTx = end;
        fs.anySent = true;
    }
}

void
OnCongState(uint32_t f, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    if (g.flows[f].stateLog)
    {
        *g.flows[f].stateLog << Simulator::Now().GetSeconds() << ","
                             << TcpSocketState::TcpCongStateName[now] << "\n";
    }
    if (now == TcpSocketState::CA_LOSS)
    {
        g.flows[f].timeouts++;
    }
    else if (now == TcpSocketState::CA_RECOVERY)
    {
        g.flows[f].recoveries++;
    }
}

void
OnCwnd(uint32_t f, uint32_t, uint32_t cwnd)
{
    *g.flows[f].cwndLog << Simulator::Now().GetSeconds() << "," << cwnd << "\n";
}

void
OnInFlight(uint32_t f, uint32_t, uint32_t bytes)
{
    *g.flows[f].inflightLog << Simulator::Now().GetSeconds() << "," << bytes << "\n";
}

void
HookSocket(uint32_t f, Ptr<BulkSendApplication> app)
{
    Ptr<TcpSocketBase> s = DynamicCast<TcpSocketBase>(app->GetSocket());
    NS_ABORT_MSG_IF(!s, "BulkSend has no TCP socket yet");
    s->TraceConnectWithoutContext("Tx", MakeBoundCallback(&OnTcpTx, f));
    s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&OnCongState, f));
    if (g.flows[f].cwndLog)
    {
        s->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&OnCwnd, f));
        s->TraceConnectWithoutContext("BytesInFlight", MakeBoundCallback(&OnInFlight, f));
    }
}

void
SampleQueue(Ptr<QueueDisc> q, Time every)
{
    *g.queueLog << Simulator::Now().GetSeconds() << "," << q->GetNPackets() << "\n";
    Simulator::Schedule(every, &SampleQueue, q, every);
}

double
Percentile(const std::vector<uint64_t>& hist, uint64_t count, double q)
{
    uint64_t want = static_cast<uint64_t>(q * count);
    uint64_t seen = 0;
    for (size_t i = 0; i < hist.size(); i++)
    {
        seen += hist[i];
        if (seen > want)
        {
            return (i + 0.5) * 0.1;
        }
    }
    return 0;
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string cc = "cubic";
    uint32_t flows = 1;
    double duration = 30;
    double measureFrom = 5;
    std::string bneckRate = "100Mbps";
    std::string bneckDelay = "20ms";
    uint32_t bneckQueue = 2000;
    std::string accessRate = "1Gbps";
    std::string accessDelay = "1ms";
    uint32_t accessQueue = 1000;
    uint32_t mss = 1448;
    uint32_t rcvBufBytes = 65535u << 7;
    uint32_t sndBufBytes = 65535u << 7;
    uint32_t sendSize = 1448 * 44;
    double minRtoMs = 200;
    double granularityMs = 200;
    double delAckMs = 40;
    std::string traceDir;

    CommandLine cmd(__FILE__);
    cmd.AddValue("cc", "cubic | reno (TcpLinuxReno) | newreno (TcpNewReno)", cc);
    cmd.AddValue("flows", "number of senders", flows);
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.AddValue("measureFrom", "statistics from this second on", measureFrom);
    cmd.AddValue("bneckRate", "bottleneck rate", bneckRate);
    cmd.AddValue("bneckDelay", "bottleneck one-way delay", bneckDelay);
    cmd.AddValue("bneckQueue", "bottleneck FIFO, packets", bneckQueue);
    cmd.AddValue("accessRate", "access and egress link rate", accessRate);
    cmd.AddValue("accessDelay", "access and egress one-way delay", accessDelay);
    cmd.AddValue("accessQueue", "access and egress FIFO, packets", accessQueue);
    cmd.AddValue("mss", "TCP segment size", mss);
    cmd.AddValue("rcvBuf", "socket receive buffer, bytes", rcvBufBytes);
    cmd.AddValue("sndBuf", "socket send buffer, bytes", sndBufBytes);
    cmd.AddValue("sendSize", "BulkSend write size, bytes", sendSize);
    cmd.AddValue("minRto", "MinRto, ms", minRtoMs);
    cmd.AddValue("granularity", "ClockGranularity (RTO floor above srtt), ms", granularityMs);
    cmd.AddValue("delAck", "DelAckTimeout, ms", delAckMs);
    cmd.AddValue("traceDir", "write cwnd, queue and drop traces here (optional)", traceDir);
    cmd.Parse(argc, argv);

    std::string tcpType;
    if (cc == "cubic")
    {
        tcpType = "ns3::TcpCubic";
    }
    else if (cc == "reno" || cc == "linuxreno")
    {
        tcpType = "ns3::TcpLinuxReno";
    }
    else if (cc == "newreno")
    {
        tcpType = "ns3::TcpNewReno";
    }
    else
    {
        NS_ABORT_MSG("unknown --cc " << cc);
    }

    Config::SetDefault("ns3::TcpL4Protocol::SocketType", StringValue(tcpType));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType", StringValue("ns3::TcpPrrRecovery"));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(mss));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(sndBufBytes));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(rcvBufBytes));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(2));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(MilliSeconds(delAckMs)));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MicroSeconds(minRtoMs * 1000)));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity",
                       TimeValue(MicroSeconds(granularityMs * 1000)));

    g.measureFrom = Seconds(measureFrom);
    g.end = Seconds(duration);
    g.flows.resize(flows);
    if (!traceDir.empty())
    {
        g.queueLog = std::make_shared<std::ofstream>(traceDir + "/queue.csv");
        g.dropLog = std::make_shared<std::ofstream>(traceDir + "/drops.csv");
        for (uint32_t f = 0; f < flows; f++)
        {
            std::string n = std::to_string(f) + ".csv";
            g.flows[f].cwndLog = std::make_shared<std::ofstream>(traceDir + "/cwnd-" + n);
            g.flows[f].stateLog = std::make_shared<std::ofstream>(traceDir + "/state-" + n);
            g.flows[f].inflightLog = std::make_shared<std::ofstream>(traceDir + "/inflight-" + n);
        }
    }

    NodeContainer senders;
    senders.Create(flows);
    NodeContainer routers;
    routers.Create(2);
    NodeContainer receivers;
    receivers.Create(flows);

    InternetStackHelper stack;
    stack.InstallAll();

    PointToPointHelper edge;
    edge.SetDeviceAttribute("DataRate", StringValue(accessRate));
    edge.SetChannelAttribute("Delay", StringValue(accessDelay));
    edge.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1p"));
    PointToPointHelper bneck;
    bneck.SetDeviceAttribute("DataRate", StringValue(bneckRate));
    bneck.SetChannelAttribute("Delay", StringValue(bneckDelay));
    bneck.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1p"));

    TrafficControlHelper edgeQ;
    edgeQ.SetRootQueueDisc("ns3::FifoQueueDisc",
                           "MaxSize",
                           QueueSizeValue(QueueSize(std::to_string(accessQueue) + "p")));
    TrafficControlHelper bneckQ;
    bneckQ.SetRootQueueDisc("ns3::FifoQueueDisc",
                            "MaxSize",
                            QueueSizeValue(QueueSize(std::to_string(bneckQueue) + "p")));

    Ipv4AddressHelper addr("10.0.0.0", "255.255.255.252");
    NetDeviceContainer bneckDevs = bneck.Install(routers.Get(0), routers.Get(1));
    QueueDiscContainer bneckQdiscs = bneckQ.Install(bneckDevs);
    addr.Assign(bneckDevs);
    addr.NewNetwork();

    std::vector<Ipv4Address> rxAddr(flows);
    for (uint32_t f = 0; f < flows; f++)
    {
        NetDeviceContainer a = edge.Install(senders.Get(f), routers.Get(0));
        HookEdge(a, edgeQ.Install(a));
        addr.Assign(a);
        addr.NewNetwork();
        NetDeviceContainer e = edge.Install(routers.Get(1), receivers.Get(f));
        HookEdge(e, edgeQ.Install(e));
        Ipv4InterfaceContainer ei = addr.Assign(e);
        addr.NewNetwork();
        rxAddr[f] = ei.GetAddress(1);
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    // Bottleneck direction: router 0's device.
    Ptr<QueueDisc> q = bneckQdiscs.Get(0);
    q->TraceConnectWithoutContext("Enqueue", MakeCallback(&OnQdiscEnqueue));
    q->TraceConnectWithoutContext("Drop", MakeCallback(&OnQdiscDrop));
    Ptr<PointToPointNetDevice> bdev = DynamicCast<PointToPointNetDevice>(bneckDevs.Get(0));
    bdev->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&OnBottleneckTxBegin));
    bdev->GetQueue()->TraceConnectWithoutContext("Drop", MakeCallback(&OnDeviceDrop));
    if (g.queueLog)
    {
        Simulator::Schedule(Seconds(0), &SampleQueue, q, MilliSeconds(10));
    }

    const uint16_t basePort = g.basePort;
    for (uint32_t f = 0; f < flows; f++)
    {
        uint16_t port = basePort + f;
        PacketSinkHelper sink("ns3::TcpSocketFactory",
                              InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer s = sink.Install(receivers.Get(f));
        s.Start(Seconds(0));
        s.Get(0)->TraceConnectWithoutContext("Rx", MakeBoundCallback(&OnSinkRx, f));

        BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(rxAddr[f], port));
        bulk.SetAttribute("MaxBytes", UintegerValue(0));
        bulk.SetAttribute("SendSize", UintegerValue(sendSize));
        ApplicationContainer b = bulk.Install(senders.Get(f));
        b.Start(Seconds(0));
        Ptr<BulkSendApplication> app = DynamicCast<BulkSendApplication>(b.Get(0));
        // The socket exists once the application has started.
        Simulator::Schedule(NanoSeconds(1), &HookSocket, f, app);
    }

    Simulator::Stop(Seconds(duration));
    auto t0 = std::chrono::steady_clock::now();
    Simulator::Run();
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    double window = duration - measureFrom;
    double total = 0;
    double sumSq = 0;
    uint64_t sent = 0;
    uint64_t retx = 0;
    uint64_t timeouts = 0;
    uint64_t recoveries = 0;
    std::string per = "[";
    for (uint32_t f = 0; f < flows; f++)
    {
        double mbps = g.flows[f].rxBytesWindow * 8.0 / window / 1e6;
        total += mbps;
        sumSq += mbps * mbps;
        sent += g.flows[f].dataSent;
        retx += g.flows[f].retransmits;
        timeouts += g.flows[f].timeouts;
        recoveries += g.flows[f].recoveries;
        char buf[64];
        std::snprintf(buf, sizeof buf, "%s%.4f", f ? "," : "", mbps);
        per += buf;
    }
    per += "]";
    double jain = sumSq > 0 ? total * total / (flows * sumSq) : 0;
    double bneckBps = DataRate(bneckRate).GetBitRate();
    double util = g.txBytesWindow * 8.0 / bneckBps / window;
    double qmean = g.sojournCount ? g.sojournSumMs / g.sojournCount : 0;
    double qp95 = Percentile(g.sojournHist, g.sojournCount, 0.95);

    std::printf("RESULT {\"simulator\":\"ns-3.37\",\"cc\":\"%s\",\"tcp\":\"%s\",\"flows\":%u,"
                "\"duration_s\":%g,\"measure_from_s\":%g,\"wall_s\":%.4f,"
                "\"goodput_mbps\":%.4f,\"flow_mbps\":%s,\"jain\":%.4f,"
                "\"queue_delay_mean_ms\":%.3f,\"queue_delay_p95_ms\":%.2f,\"utilization\":%.4f,"
                "\"drops_window\":%lu,\"drops_total\":%lu,\"device_drops\":%lu,\"edge_drops\":%lu,"
                "\"data_packets\":%lu,\"retransmits\":%lu,\"timeouts\":%lu,\"recoveries\":%lu}\n",
                cc.c_str(),
                tcpType.c_str(),
                flows,
                duration,
                measureFrom,
                wall,
                total,
                per.c_str(),
                jain,
                qmean,
                qp95,
                util,
                (unsigned long)g.dropsWindow,
                (unsigned long)g.dropsTotal,
                (unsigned long)g.devDrops,
                (unsigned long)g.edgeDrops,
                (unsigned long)sent,
                (unsigned long)retx,
                (unsigned long)timeouts,
                (unsigned long)recoveries);
    Simulator::Destroy();
    return 0;
}
