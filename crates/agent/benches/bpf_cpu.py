#!/usr/bin/env python3
"""CPU with `rtac daemon` on against off (root).

Paired runs: iperf3 -R moves a fixed amount (--bytes) from an iperf3
server (the sender) to the client (the receiver), CUBIC, as fast as the
path goes. Each pair runs once without a daemon and once with
`rtac-dev daemon -c CONTROLLER --cgroup CG`, in alternating order (off
first in odd pairs, on first in even ones). Only the receiver is in CG.

--path veth (default): the sender in its own network namespace, joined to
the receiver (root namespace) by a veth pair; sender pinned to CPU 0,
receiver to CPU 1 (--no-pin: not pinned). --path lo: both on loopback in
the root namespace, both in CG (the path the earlier figures used).

Per run: CPU (user + system, from wait4) of the receiver, of the sender,
of ksoftirqd (the kernel's deferred receive processing, from /proc), and
when on the daemon's (from /proc during the transfer). On veth the
receiver's segments are processed in the softirq of the CPU that sent
them, so part of the receive path (and of the BPF program: it runs for
every ACK, including those sent from that softirq) is charged to the
sender's process: "total" (all four) is the figure that holds every cost;
"receiver" is the receiver's process plus the daemon. Prints each pair,
the per-pair ratios and their medians.

  crates/agent/benches/bpf_cpu.py [--path veth|lo] [--pairs 9] [--bytes 4G]
      [--controller none] [--param k=v] [--bpf-stats]

--bpf-stats turns on kernel.bpf_stats_enabled and prints the sock_ops
program's run count and mean run time per "on" run (the statistics cost
two clock reads per run of the program: leave them off for the figures).

--perf samples every CPU (perf record -a, 1999 Hz) during each transfer
and prints the share of the busy (non-idle) samples that rtac causes: the
daemon's process, the BPF programs of rtac.bpf.c, the helpers they call
and the kernel's hook that runs them for each outgoing segment (its cost
is outside the program's own statistics). The same classifier is applied
to the "off" runs as a control: it must find nothing there. Unlike the
paired totals, this share does not move with the transfer's rate.
"""
import argparse, json, os, re, signal, statistics, subprocess, sys, time

ap = argparse.ArgumentParser()
ap.add_argument("--path", choices=["veth", "lo"], default="veth")
ap.add_argument("--pairs", type=int, default=9)
ap.add_argument("--bytes", default="4G")
ap.add_argument("--controller", default="none")
ap.add_argument("--param", action="append", default=[])
ap.add_argument("--no-pin", action="store_true")
ap.add_argument("--bpf-stats", action="store_true")
ap.add_argument("--perf", action="store_true")
ap.add_argument("--rtac-dev", default=os.path.join(os.path.dirname(__file__), "../../../target/release/rtac-dev"))
a = ap.parse_args()

CG = "/sys/fs/cgroup/unified/rtac-cpu-bench"
NS = "rtac-cpu-snd"
os.makedirs(CG, exist_ok=True)
IN_CG = ["sh", "-c", f"echo $$ > {CG}/cgroup.procs && exec \"$@\"", "sh"]


def sh(cmd):
    subprocess.run(cmd, shell=True, check=True)


def veth_up():
    sh(f"ip netns del {NS} 2>/dev/null || true")
    sh(f"ip netns add {NS}")
    sh(f"ip link add rtac-cpu-r type veth peer name rtac-cpu-s netns {NS}")
    sh("ip addr add 10.201.0.2/24 dev rtac-cpu-r && ip link set rtac-cpu-r up")
    sh(f"ip -n {NS} addr add 10.201.0.1/24 dev rtac-cpu-s && ip -n {NS} link set rtac-cpu-s up && ip -n {NS} link set lo up")


def veth_down():
    sh(f"ip netns del {NS} 2>/dev/null || true")
    sh("ip link del rtac-cpu-r 2>/dev/null || true")


def proc_cpu(pid):
    """CPU seconds of all threads of `pid`, from schedstat (nanoseconds;
    /proc/PID/stat counts in 10 ms ticks, too coarse for the daemon)."""
    total = 0
    for t in os.listdir(f"/proc/{pid}/task"):
        try:
            total += int(open(f"/proc/{pid}/task/{t}/schedstat").read().split()[0])
        except (OSError, ValueError):
            pass
    return total / 1e9


def ksoftirqd_pids():
    out = []
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                if open(f"/proc/{p}/comm").read().startswith("ksoftirqd/"):
                    out.append(int(p))
            except OSError:
                pass
    return out


KSOFT = ksoftirqd_pids()


def ksoft_cpu():
    return sum(proc_cpu(p) for p in KSOFT)


def pin(cpu):
    return [] if a.no_pin else ["taskset", "-c", str(cpu)]


# Kernel symbols that run only because rtac's programs are attached: the
# programs (bpf_prog_<tag>_<function of rtac.bpf.c>), the helpers they call,
# and the sock_ops hook around them.
RTAC_BPF = re.compile(r"bpf_prog_[0-9a-f]+_(rtac_\w+|emit|control|track|forget|restore|wake|user_space_alive|let_sender_go)$")
# (bpf_skops_write_hdr_opt runs for every segment with or without them.)
HOOK = {"__cgroup_bpf_run_filter_sock_ops", "bpf_skops_hdr_opt_len", "bpf_sk_storage_get", "bpf_skc_to_tcp_sock", "bpf_ringbuf_output",
        "__bpf_ringbuf_reserve", "bpf_ringbuf_commit", "bpf_sock_ops_cb_flags_set", "bpf_sock_ops_setsockopt",
        "_bpf_setsockopt", "__bpf_setsockopt", "sol_tcp_sockopt", "bpf_get_socket_cookie_sock_ops",
        "bpf_sk_storage_get_tracing", "bpf_local_storage_lookup"}


def perf_share(data, daemon_comm):
    """(daemon %, BPF %) of the busy samples in perf.data `data`."""
    out = subprocess.run(["perf", "report", "-i", data, "--no-children", "--sort", "comm,sym", "--stdio", "-q",
                          "-t", "\t", "-g", "none"], capture_output=True, text=True).stdout
    busy = daemon = bpf = 0.0
    for line in out.splitlines():
        f = line.split("\t")
        if len(f) != 3 or not f[0].strip().endswith("%"):
            continue
        pct, comm, sym = float(f[0].strip()[:-1]), f[1].strip(), f[2].strip()[4:]
        if comm == "swapper":
            continue
        busy += pct
        if comm == daemon_comm:
            daemon += pct
        elif RTAC_BPF.search(sym) or sym in HOOK:
            bpf += pct
    return 100 * daemon / busy, 100 * bpf / busy


def one(port, daemon=None):
    """One transfer: (receiver CPU, sender CPU, ksoftirqd CPU, daemon CPU, Mbit/s, (daemon %, BPF %) or None)."""
    if a.path == "veth":
        server = ["ip", "netns", "exec", NS] + pin(0) + ["iperf3", "-s", "-1", "-p", str(port)]
        client = IN_CG + pin(1) + ["iperf3", "-c", "10.201.0.1"]
    else:
        server = IN_CG + pin(0) + ["iperf3", "-s", "-1", "-p", str(port)]
        client = IN_CG + pin(1) + ["iperf3", "-c", "127.0.0.1"]
    srv = subprocess.Popen(server, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.3)
    d0 = proc_cpu(daemon) if daemon else 0.0
    k0 = ksoft_cpu()
    data = f"/tmp/rtac-bpf-cpu-{port}.data"
    rec = ["perf", "record", "-q", "-a", "-F", "1999", "-o", data, "--"] if a.perf else []
    cli = subprocess.Popen(rec + client + ["-p", str(port), "-R", "-n", a.bytes, "-C", "cubic", "-f", "m"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = cli.stdout.read().decode()
    _, _, ru = os.wait4(cli.pid, 0)
    rcv = ru.ru_utime + ru.ru_stime
    dcpu = proc_cpu(daemon) - d0 if daemon else 0.0
    kcpu = ksoft_cpu() - k0
    _, _, ru = os.wait4(srv.pid, 0)
    snd = ru.ru_utime + ru.ru_stime
    m = re.findall(r"([\d.]+) Mbits/sec.*receiver", out)
    share = perf_share(data, os.path.basename(a.rtac_dev)[:15]) if a.perf else None
    if a.perf:
        os.remove(data)
    return rcv, snd, kcpu, dcpu, float(m[-1]) if m else float("nan"), share


def prog_stats():
    """(run_cnt, run_time_ns) of the loaded rtac_sockops programs."""
    progs = json.loads(subprocess.run(["bpftool", "prog", "show", "-j"], capture_output=True, text=True).stdout or "[]")
    cnt = sum(p.get("run_cnt", 0) for p in progs if p.get("name") == "rtac_sockops")
    ns = sum(p.get("run_time_ns", 0) for p in progs if p.get("name") == "rtac_sockops")
    return cnt, ns


def on_run(port):
    argv = [a.rtac_dev, "daemon", "-c", a.controller, "--cgroup", CG] + sum((["-p", p] for p in a.param), [])
    d = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True)
    while True:
        line = d.stderr.readline()
        if not line:
            sys.exit(f"rtac-dev daemon did not start (exit {d.wait()})")
        if "daemon controlling" in line:
            break
    r = one(port, d.pid)
    extra, prog_s = "", 0.0
    if a.bpf_stats:
        cnt, ns = prog_stats()
        prog_s = ns / 1e9
        extra = f"; program runs {cnt}, mean {ns / max(cnt, 1):.0f} ns, total {prog_s:.3f} s"
    d.send_signal(signal.SIGTERM)
    rest = d.stderr.read()
    d.wait()
    lag = re.search(r"control lag median (\d+) us, p99 (\d+) us over (\d+) answers", rest)
    if lag:
        extra += f"; {lag.group(3)} answers, lag median {lag.group(1)} us p99 {lag.group(2)} us"
    return r, extra, prog_s


if a.path == "veth":
    veth_up()
if a.bpf_stats:
    sh("sysctl -q kernel.bpf_stats_enabled=1")
rows = []
try:
    for i in range(a.pairs):
        if i % 2 == 0:
            off = one(5301)
            on, extra, prog_s = on_run(5302)
        else:
            on, extra, prog_s = on_run(5302)
            off = one(5301)
        tot_off, tot_on = sum(off[:4]), sum(on[:4])
        rcv_off, rcv_on = off[0], on[0] + on[3]
        rows.append((tot_off, tot_on, rcv_off, rcv_on, on[3], off[4], on[4], prog_s, off[5], on[5]))
        if a.perf:
            extra += (f"; perf: on daemon {on[5][0]:.2f} % + BPF {on[5][1]:.2f} % of busy CPU, "
                      f"off (control) {off[5][0]:.2f} % + {off[5][1]:.2f} %")
        print(f"pair {i + 1} ({'off first' if i % 2 == 0 else 'on first'}): "
              f"off rcv {off[0]:.3f} snd {off[1]:.3f} ksoftirqd {off[2]:.3f} s ({off[4]:.0f} Mbit/s); "
              f"on rcv {on[0]:.3f} snd {on[1]:.3f} ksoftirqd {on[2]:.3f} daemon {on[3]:.3f} s ({on[4]:.0f} Mbit/s); "
              f"total {100 * tot_on / tot_off:.1f} %, receiver+daemon {100 * rcv_on / rcv_off:.1f} %{extra}", flush=True)
finally:
    if a.bpf_stats:
        sh("sysctl -q kernel.bpf_stats_enabled=0")
    if a.path == "veth":
        veth_down()
    os.rmdir(CG)


def med(i):
    return statistics.median(r[i] for r in rows)


def ratios(i, j):
    return sorted(100 * r[j] / r[i] for r in rows)


tot, rcv = ratios(0, 1), ratios(2, 3)
print(f"{a.path}, {a.pairs} pairs of {a.bytes}, controller {a.controller}: "
      f"throughput off {med(5):.0f}, on {med(6):.0f} Mbit/s")
print(f"total CPU: median off {med(0):.3f} s, on {med(1):.3f} s (daemon {med(4):.3f} s); "
      f"per-pair ratios {' '.join(f'{x:.1f}' for x in tot)}; median {statistics.median(tot):.1f} %")
print(f"receiver+daemon CPU: median off {med(2):.3f} s, on {med(3):.3f} s; "
      f"per-pair ratios {' '.join(f'{x:.1f}' for x in rcv)}; median {statistics.median(rcv):.1f} %")
if a.perf:
    on_share = sorted(r[9][0] + r[9][1] for r in rows)
    print(f"perf, rtac's share of the busy CPU (daemon + BPF): median {statistics.median(r[9][0] for r in rows):.2f} "
          f"+ {statistics.median(r[9][1] for r in rows):.2f} %; per run {' '.join(f'{x:.2f}' for x in on_share)}; "
          f"median {statistics.median(on_share):.2f} %; off runs (control) "
          f"median {statistics.median(r[8][0] + r[8][1] for r in rows):.2f} %")
if a.bpf_stats:
    # The direct cost: the program's own run time (kernel statistics) and
    # the daemon's CPU, against the same pair's CPU without the daemon.
    direct = sorted(100 * (r[7] + r[4]) / r[0] for r in rows)
    print(f"direct cost (program {med(7):.4f} s + daemon {med(4):.3f} s per run) as a share of the total CPU off: "
          f"per pair {' '.join(f'{x:.2f}' for x in direct)}; median {statistics.median(direct):.2f} %")
