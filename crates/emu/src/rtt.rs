//! Round-trip times as a TCP sender measures them, rebuilt from the two
//! link logs of one run (their TCP fields, see `crate::log`).
//!
//! The endpoints sit directly behind the emulator (a veth, microseconds
//! away), so a segment leaves its sender when it arrives at the emulator,
//! reaches its receiver when it leaves the link plus the propagation delay,
//! and the same holds for ACKs in the other direction. Two kinds of sample
//! come out:
//!
//! - **Linux's** (`samples`): what `tcp_ack_update_rtt` feeds into the
//!   kernel's smoothed RTT. An ACK that advances the cumulative
//!   acknowledgment times the oldest newly acknowledged segment that was
//!   neither retransmitted nor SACKed before (`tcp_clean_rtx_queue`); if it
//!   covers retransmitted data (Karn), none. Failing that, an ACK that
//!   SACKs new data times the lowest newly SACKed segment that was never
//!   retransmitted (`tcp_sacktag_one`). Failing both, an ACK that advances
//!   the cumulative acknowledgment uses its timestamp echo.
//! - **Timestamp echo** (`echo_samples`): RFC 7323 section 4.3, one sample
//!   per ACK that acknowledges or SACKs new data, from the sending of the
//!   segment whose timestamp the ACK echoes to the ACK's arrival. The
//!   receiver echoes the latest segment that arrived at or below the
//!   acknowledgment it last sent (Linux's receiver does too), so an ACK in
//!   loss recovery echoes the segment before the hole and its sample grows
//!   with the length of the recovery. This is how `rtac-sim`'s sender takes
//!   its samples.

use crate::frame::TcpSeg;
use crate::log::{Event, Log};

/// One RTT sample: when the ACK reached the sender, and the RTT, in ms
/// since the logs' base timestamp.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RttSample {
    pub t_ms: f64,
    pub rtt_ms: f64,
}

/// The RTT samples of one TCP sender.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowRtt {
    /// `down` when the sender is the server (its data crosses the down
    /// link), `up` when it is the client.
    pub direction: &'static str,
    /// The data direction's flow number and description
    /// (`tcp 100.64.0.1:5201 > 100.64.0.2:40312`).
    pub flow: u32,
    pub desc: String,
    /// When its first segment with data reached the emulator, ms.
    pub first_data_ms: Option<f64>,
    /// Segments that take sequence space (data, SYN, FIN), retransmissions
    /// included.
    pub data_segments: u64,
    /// Linux's samples (see the module documentation).
    pub samples: Vec<RttSample>,
    /// Timestamp-echo samples (RFC 7323, as `rtac-sim` takes them).
    pub echo_samples: Vec<RttSample>,
}

/// The one-way propagation delay a log's header states, ms.
pub fn header_delay_ms(log: &Log) -> Result<f64, String> {
    let d = log.header("delay").ok_or("the log has no \"# delay:\" header")?;
    rtac_core::units::parse_duration(d)
        .map(|d| d.as_nanos() as f64 / 1e6)
        .map_err(|e| format!("the log's delay header {d:?}: {e}"))
}

/// The description of the same connection seen from the other end:
/// `tcp A > B` becomes `tcp B > A`.
fn reversed(desc: &str) -> Option<String> {
    let (proto, rest) = desc.split_once(' ')?;
    let (a, b) = rest.split_once(" > ")?;
    Some(format!("{proto} {b} > {a}"))
}

/// Unwraps 32-bit sequence numbers into a 64-bit space: each value is
/// placed within 2^31 of the previous one.
#[derive(Clone, Default)]
struct Unwrap {
    last: Option<i64>,
}

impl Unwrap {
    fn at(&mut self, v: u32) -> i64 {
        let x = match self.last {
            None => v as i64,
            Some(last) => last + (v.wrapping_sub(last as u32) as i32) as i64,
        };
        self.last = Some(x);
        x
    }
}

/// A segment in the sender's retransmission queue.
struct Segment {
    start: i64,
    end: i64,
    retransmitted: bool,
    sacked: bool,
    sent_ms: f64,
}

/// The RTT samples of every TCP sender in a run, from the log of the
/// direction its data took and the log of the direction its ACKs took.
/// Senders that sent no data (only a SYN or a FIN) are left out.
pub fn sender_rtts(down: &Log, up: &Log) -> Result<Vec<FlowRtt>, String> {
    let (down_delay, up_delay) = (header_delay_ms(down)?, header_delay_ms(up)?);
    let mut out = Vec::new();
    for (direction, data, data_delay, acks, ack_delay) in
        [("down", down, down_delay, up, up_delay), ("up", up, up_delay, down, down_delay)]
    {
        for (flow, desc) in &data.flows {
            let Some(back) = reversed(desc) else { continue };
            let Some(ack_flow) = acks.flows.iter().find(|(_, d)| *d == back).map(|(n, _)| *n) else { continue };
            let r = flow_rtt((data, *flow, data_delay), (acks, ack_flow, ack_delay));
            if r.first_data_ms.is_some() {
                out.push(FlowRtt { direction, desc: desc.clone(), ..r });
            }
        }
    }
    Ok(out)
}

/// One flow's arrivals, departures (with the instant they reach the far
/// end) and drops, each in time order.
struct Trips {
    arrivals: Vec<(f64, TcpSeg)>,
    /// (reaches the far end, left the near end, segment).
    departures: Vec<(f64, f64, TcpSeg)>,
    drops: Vec<(f64, TcpSeg)>,
}

fn trips(log: &Log, flow: u32, delay_ms: f64) -> Trips {
    let mut t = Trips { arrivals: Vec::new(), departures: Vec::new(), drops: Vec::new() };
    for e in &log.events {
        match e {
            Event::Arrival { t_ms, flow: f, tcp: Some(s), .. } if *f == flow => t.arrivals.push((*t_ms, *s)),
            Event::Departure { t_ms, delay_ms: d, flow: f, tcp: Some(s), .. } if *f == flow => {
                t.departures.push((t_ms + delay_ms, t_ms - d, *s))
            }
            Event::Drop { t_ms, flow: f, tcp: Some(s), .. } if *f == flow => t.drops.push((*t_ms, *s)),
            _ => {}
        }
    }
    t.arrivals.sort_by(|a, b| a.0.total_cmp(&b.0));
    t.departures.sort_by(|a, b| a.0.total_cmp(&b.0));
    t.drops.sort_by(|a, b| a.0.total_cmp(&b.0));
    t
}

fn flow_rtt((data, flow, data_delay): (&Log, u32, f64), (acks, ack_flow, ack_delay): (&Log, u32, f64)) -> FlowRtt {
    let d = trips(data, flow, data_delay);
    let a = trips(acks, ack_flow, ack_delay);
    // Each ACK's sending by the receiver and arrival at the sender: a flow's
    // packets keep their order through the emulator, so the ACKs that were
    // not dropped leave in the order they arrived.
    let mut drops = a.drops.iter().peekable();
    let mut sent_acks = Vec::new();
    for &(t, s) in &a.arrivals {
        if drops.peek().is_some_and(|&&(dt, ds)| dt == t && ds == s) {
            drops.next();
            continue;
        }
        if s.ack.is_some() {
            sent_acks.push((t, s));
        }
    }
    let delivered_acks: Vec<(f64, TcpSeg)> =
        a.departures.iter().filter(|(_, _, s)| s.ack.is_some()).map(|&(t, _, s)| (t, s)).collect();

    let mut seq = Unwrap::default();
    // The receiver: the timestamp each ACK echoes is the sending time of
    // the latest segment that arrived at or below the last ACK sent.
    let mut echo = Vec::with_capacity(sent_acks.len());
    {
        let mut seq = seq.clone();
        let (mut last_ack_sent, mut ts_recent) = (None::<i64>, None::<f64>);
        let mut i = 0;
        for &(t, s) in &sent_acks {
            while i < d.departures.len() && d.departures[i].0 <= t {
                let (_, sent, seg) = d.departures[i];
                i += 1;
                // Before the first ACK of the trace, the handshake's ACK
                // stands at the first segment.
                let at = seq.at(seg.seq);
                if at <= *last_ack_sent.get_or_insert(at) {
                    ts_recent = Some(sent);
                }
            }
            last_ack_sent = Some(seq.at(s.ack.unwrap_or(0)));
            echo.push(ts_recent);
        }
    }
    // The sender.
    let mut r = FlowRtt {
        direction: "",
        flow,
        desc: String::new(),
        first_data_ms: None,
        data_segments: 0,
        samples: Vec::new(),
        echo_samples: Vec::new(),
    };
    let mut segs: Vec<Segment> = Vec::new();
    let (mut nxt, mut una) = (i64::MIN, i64::MIN);
    let mut k = 0;
    let n_acks = delivered_acks.len().min(echo.len());
    let sends = d.arrivals.iter().filter(|(_, s)| s.len > 0);
    for &(t, s) in sends.chain(std::iter::once(&(f64::INFINITY, TcpSeg::default()))) {
        // The ACKs that reached the sender before this segment left it.
        while k < n_acks && delivered_acks[k].0 <= t {
            let (ta, ack) = delivered_acks[k];
            let echoed = echo[k];
            k += 1;
            if segs.is_empty() {
                continue;
            }
            let cum = seq.at(ack.ack.unwrap_or(0));
            let (mut seq_rtt, mut sack_rtt, mut retrans_acked) = (None, None, false);
            let advanced = cum > una;
            if advanced {
                let from = segs.partition_point(|x| x.end <= una);
                let to = segs.partition_point(|x| x.end <= cum);
                for x in &segs[from..to] {
                    if x.retransmitted {
                        retrans_acked = true;
                    } else if !x.sacked && seq_rtt.is_none() {
                        seq_rtt = Some(ta - x.sent_ms);
                    }
                }
                una = cum;
            }
            let mut newly_sacked = 0;
            let mut blocks: Vec<(i64, i64)> = ack.sacks().iter().map(|&(l, r)| (seq.at(l), seq.at(r))).collect();
            blocks.sort();
            for (l, rr) in blocks {
                let from = segs.partition_point(|x| x.start < l.max(una));
                for x in segs[from..].iter_mut().take_while(|x| x.end <= rr) {
                    if !x.sacked {
                        x.sacked = true;
                        newly_sacked += 1;
                        if !x.retransmitted && sack_rtt.is_none() {
                            sack_rtt = Some(ta - x.sent_ms);
                        }
                    }
                }
            }
            let ts_rtt = echoed.map(|e| ta - e);
            let linux = if retrans_acked { None } else { seq_rtt }.or(sack_rtt).or(ts_rtt.filter(|_| advanced));
            if let Some(v) = linux {
                r.samples.push(RttSample { t_ms: ta, rtt_ms: v });
            }
            if let Some(v) = ts_rtt.filter(|_| advanced || newly_sacked > 0) {
                r.echo_samples.push(RttSample { t_ms: ta, rtt_ms: v });
            }
        }
        if t == f64::INFINITY {
            break;
        }
        let start = seq.at(s.seq);
        let end = start + s.len as i64;
        r.data_segments += 1;
        if r.first_data_ms.is_none() && s.len > 1 {
            r.first_data_ms = Some(t);
        }
        if segs.is_empty() {
            una = start;
        }
        if start < nxt {
            // A retransmission: the segments it overlaps become ambiguous.
            let i = segs.partition_point(|x| x.end <= start);
            for x in segs[i..].iter_mut().take_while(|x| x.start < end) {
                x.retransmitted = true;
                x.sent_ms = t;
            }
        }
        if end > nxt {
            segs.push(Segment { start: start.max(nxt), end, retransmitted: false, sacked: false, sent_ms: t });
            nxt = end;
        }
    }
    r
}

/// The smoothed RTT after each sample (RFC 6298 with Linux's gain: the
/// first sample, then 7/8 of the old value plus 1/8 of the new sample), as
/// (instant, value) steps in ms.
pub fn smoothed(samples: &[RttSample]) -> Vec<(f64, f64)> {
    let mut srtt: Option<f64> = None;
    samples
        .iter()
        .map(|s| {
            let v = srtt.map_or(s.rtt_ms, |v| v + (s.rtt_ms - v) / 8.0);
            srtt = Some(v);
            (s.t_ms, v)
        })
        .collect()
}

/// The value of a step function (sorted (instant, value) steps) at `t`: the
/// last step at or before `t`, if any.
pub fn value_at(steps: &[(f64, f64)], t: f64) -> Option<f64> {
    let i = steps.partition_point(|s| s.0 <= t);
    (i > 0).then(|| steps[i - 1].1)
}

/// The time average of a step function over `[from, to)`, counting only
/// the time after its first step.
pub fn time_mean(steps: &[(f64, f64)], from: f64, to: f64) -> Option<f64> {
    let mut area = 0.0;
    let mut span = 0.0;
    for (i, &(t, v)) in steps.iter().enumerate() {
        let next = steps.get(i + 1).map_or(to, |s| s.0);
        let (a, b) = (t.max(from), next.min(to));
        if b > a {
            area += v * (b - a);
            span += b - a;
        }
    }
    (span > 0.0).then(|| area / span)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::TcpSeg;

    /// An ACK in a test: sent at, acknowledgment number, SACK blocks.
    type TestAck<'a> = (f64, u32, &'a [(u32, u32)]);

    /// The logs of one flow: data segments (sent at, seq, len, left the
    /// down link at, or `None` if dropped there) and ACKs (sent at, ack,
    /// SACK blocks), each ACK leaving the up link 0.1 ms after it arrived.
    /// Delays: 20 ms down, 10 ms up.
    fn logs(data: &[(f64, u32, u32, Option<f64>)], acks: &[TestAck]) -> (Log, Log) {
        let mut down = Log::default();
        down.header.push(("delay".into(), "20ms".into()));
        down.flows.push((1, "tcp 10.0.0.1:80 > 10.0.0.2:9".into()));
        for &(t, seq, len, left) in data {
            let tcp = Some(TcpSeg { seq, len, ack: Some(1), ..TcpSeg::default() });
            down.events.push(Event::Arrival { t_ms: t, size: len + 52, flow: 1, tcp });
            down.events.push(match left {
                Some(l) => Event::Departure { t_ms: l, size: len + 52, delay_ms: l - t, flow: 1, tcp },
                None => Event::Drop { t_ms: t, size: len + 52, flow: 1, cause: "queue".into(), tcp },
            });
        }
        let mut up = Log::default();
        up.header.push(("delay".into(), "10ms".into()));
        up.flows.push((1, "tcp 10.0.0.2:9 > 10.0.0.1:80".into()));
        for &(t, ack, sacks) in acks {
            let mut tcp = TcpSeg { seq: 1, len: 0, ack: Some(ack), ..TcpSeg::default() };
            for &b in sacks {
                tcp.sack[tcp.nsack as usize] = b;
                tcp.nsack += 1;
            }
            up.events.push(Event::Arrival { t_ms: t, size: 52, flow: 1, tcp: Some(tcp) });
            up.events.push(Event::Departure { t_ms: t + 0.1, size: 52, delay_ms: 0.1, flow: 1, tcp: Some(tcp) });
        }
        (down, up)
    }

    fn rtts(s: &[RttSample]) -> Vec<f64> {
        s.iter().map(|s| (s.rtt_ms * 1000.0).round() / 1000.0).collect()
    }

    #[test]
    fn each_advancing_ack_times_the_oldest_segment_it_acknowledges() {
        // Three segments sent at 0, 1, 2 ms, 5 ms in the down link's queue,
        // delivered at 25, 26, 27 ms; ACKs for the first two and the third
        // leave the receiver at 26 and 27.5 ms and reach the sender at 36.1
        // and 37.6 ms. Sequence numbers wrap in between.
        let s0 = u32::MAX - 999;
        let (s1, s2, s3) = (s0.wrapping_add(1000), s0.wrapping_add(2000), s0.wrapping_add(3000));
        let (down, up) = logs(
            &[(0.0, s0, 1000, Some(5.0)), (1.0, s1, 1000, Some(6.0)), (2.0, s2, 1000, Some(7.0))],
            &[(26.0, s2, &[]), (27.5, s3, &[])],
        );
        let r = sender_rtts(&down, &up).unwrap();
        assert_eq!(r.len(), 1);
        assert_eq!((r[0].direction, r[0].flow, r[0].first_data_ms, r[0].data_segments), ("down", 1, Some(0.0), 3));
        assert_eq!(r[0].samples.iter().map(|s| s.t_ms).collect::<Vec<_>>(), vec![36.1, 37.6]);
        assert_eq!(rtts(&r[0].samples), vec![36.1, 35.6]);
        // Without losses the receiver echoes the same segments.
        assert_eq!(rtts(&r[0].echo_samples), vec![36.1, 35.6]);
    }

    #[test]
    fn in_recovery_linux_times_sacked_segments_and_the_echo_grows() {
        // Five segments sent at 0..4 ms; the second is dropped and sent
        // again at 40 ms. Duplicate ACKs SACK the third, fourth and fifth;
        // the ACK for the retransmission covers everything.
        let (down, up) = logs(
            &[
                (0.0, 0, 1000, Some(5.0)),
                (1.0, 1000, 1000, None),
                (2.0, 2000, 1000, Some(7.0)),
                (3.0, 3000, 1000, Some(8.0)),
                (4.0, 4000, 1000, Some(9.0)),
                (40.0, 1000, 1000, Some(45.0)),
            ],
            &[
                (25.5, 1000, &[]),
                (27.2, 1000, &[(2000, 3000)]),
                (28.2, 1000, &[(2000, 4000)]),
                (29.2, 1000, &[(2000, 5000)]),
                (65.2, 5000, &[]),
            ],
        );
        let r = sender_rtts(&down, &up).unwrap();
        // Linux: ACK timing, then the SACKed segments, then (the last ACK
        // covers a retransmission) the echo of the retransmission.
        assert_eq!(rtts(&r[0].samples), vec![35.6, 35.3, 35.3, 35.3, 35.3]);
        // RFC 7323: the duplicate ACKs echo the segment before the hole.
        assert_eq!(rtts(&r[0].echo_samples), vec![35.6, 37.3, 38.3, 39.3, 35.3]);
    }

    #[test]
    fn smoothing_and_time_averages() {
        let s = [RttSample { t_ms: 0.0, rtt_ms: 80.0 }, RttSample { t_ms: 10.0, rtt_ms: 160.0 }];
        let steps = smoothed(&s);
        assert_eq!(steps, vec![(0.0, 80.0), (10.0, 90.0)]);
        assert_eq!(value_at(&steps, -1.0), None);
        assert_eq!(value_at(&steps, 10.0), Some(90.0));
        // 80 for 10 ms, 90 for 30 ms.
        assert_eq!(time_mean(&steps, 0.0, 40.0), Some(87.5));
        assert_eq!(time_mean(&steps, 5.0, 15.0), Some(85.0));
        assert_eq!(time_mean(&[], 0.0, 1.0), None);
    }
}
