#!/usr/bin/env python3
"""Receiver CPU with `rtac daemon` on against off (root).

Paired runs on loopback, the fastest path this machine has: iperf3 -R
moves a fixed amount (--bytes) from the iperf3 server to the client (the
receiver), CUBIC. Each pair runs once without a daemon and once with
`rtac-dev daemon -c CONTROLLER` on the cgroup v2 root (every socket of the
machine). CPU = user + system time of both iperf3 processes (the kernel's
receive path and the BPF program run in their contexts) plus, when on, the
daemon's own (from its closing summary). Prints each pair and the medians.

  crates/agent/benches/bpf_cpu.py [--pairs 7] [--bytes 2G] [--controller rtac] [--param bdp=...]
"""
import argparse, os, re, signal, statistics, subprocess, sys, time

ap = argparse.ArgumentParser()
ap.add_argument("--pairs", type=int, default=7)
ap.add_argument("--bytes", default="2G")
ap.add_argument("--controller", default="rtac")
ap.add_argument("--param", action="append", default=[])
ap.add_argument("--rtac-dev", default=os.path.join(os.path.dirname(__file__), "../../../target/release/rtac-dev"))
a = ap.parse_args()

def cpu_of(argv):
    """Runs argv; returns (user+sys seconds, stdout)."""
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    return ru.ru_utime + ru.ru_stime, out.decode()

CG = "/sys/fs/cgroup/unified/rtac-cpu-bench"
os.makedirs(CG, exist_ok=True)
IN_CG = ["sh", "-c", f"echo $$ > {CG}/cgroup.procs && exec \"$@\"", "sh"]

def proc_cpu(pid):
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")

def one(port, daemon=None):
    srv = subprocess.Popen(IN_CG + ["iperf3", "-s", "-1", "-p", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.3)
    t0 = time.monotonic()
    d0 = proc_cpu(daemon) if daemon else 0.0
    cpu_c, out = cpu_of(IN_CG + ["iperf3", "-c", "127.0.0.1", "-p", str(port), "-R", "-n", a.bytes, "-C", "cubic", "-f", "m"])
    dcpu = proc_cpu(daemon) - d0 if daemon else 0.0
    wall = time.monotonic() - t0
    _, _, ru = os.wait4(srv.pid, 0)
    cpu_s = ru.ru_utime + ru.ru_stime
    m = re.findall(r"([\d.]+) Mbits/sec.*receiver", out)
    return cpu_c + cpu_s, wall, float(m[-1]) if m else float("nan"), dcpu

rows = []
for i in range(a.pairs):
    off = one(5301)
    argv = [a.rtac_dev, "daemon", "-c", a.controller, "--cgroup", CG] + sum((["-p", p] for p in a.param), [])
    d = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True)
    while "daemon controlling" not in d.stderr.readline():
        pass
    on = one(5302, d.pid)
    dcpu = on[3]
    d.send_signal(signal.SIGTERM)
    rest = d.stderr.read()
    d.wait()
    lag = re.search(r"control lag median (\d+) us, p99 (\d+) us", rest)
    rows.append((off[0], on[0] + dcpu, dcpu, off[2], on[2]))
    print(f"pair {i+1}: off {off[0]:.3f} s CPU ({off[2]:.0f} Mbit/s); on {on[0]:.3f} + daemon {dcpu:.3f} s CPU "
          f"({on[2]:.0f} Mbit/s); ratio {100 * (on[0] + dcpu) / off[0]:.1f} %"
          + (f"; control lag median {lag.group(1)} us p99 {lag.group(2)} us" if lag else ""), flush=True)
off = statistics.median(r[0] for r in rows)
on = statistics.median(r[1] for r in rows)
ratios = sorted(100 * r[1] / r[0] for r in rows)
print(f"median CPU per {a.bytes}: off {off:.3f} s, on {on:.3f} s (daemon {statistics.median(r[2] for r in rows):.3f} s); "
      f"median of per-pair ratios {statistics.median(ratios):.1f} % (range {ratios[0]:.1f}-{ratios[-1]:.1f} %); "
      f"throughput off {statistics.median(r[3] for r in rows):.0f}, on {statistics.median(r[4] for r in rows):.0f} Mbit/s")
os.rmdir(CG)
