#!/usr/bin/env bash
# The BPF mode's uplink (`rtac daemon --uplink`) through `rtac emu` (root):
# a 10 s iperf3 upload (CUBIC; throughput as the receiver counted it) over a 5 Mbit/s uplink with 25 ms each way
# and a bloated 500-packet DropTail uplink queue (1.2 s when full); a ping
# every 0.1 s alongside. Each pair: without the daemon, then with
# `rtac daemon --uplink -c rtac` on the client's cgroup.
#   crates/agent/benches/bpf_uplink.sh [RUNS] [RTAC_PARAMS]
# RTAC_PARAMS default: none, the self-tuning RTAC; bdp=21 (5 Mbit/s x
# 50 ms / 1500 B) gives the paper's RTAC with K for this path.
set -euo pipefail
cd "$(dirname "$0")/../../.."
RUNS=${1:-3}
PARAMS=${2:-}
BIN=$PWD/target/release
W=$(mktemp -d /tmp/rtac-uplink.XXXX)
CG=/sys/fs/cgroup/unified/rtac-uplink
mkdir -p $CG
one() {
  "$BIN/rtac-emu" emu --down 20mbit --up 5mbit --delay 25ms --up-queue droptail:packets=500 \
    --sysctl net.ipv4.tcp_no_metrics_save=1 --server 'iperf3 -s -1' -- sh -c "
    echo \$\$ > $CG/cgroup.procs
    ping -i 0.1 \$RTAC_SERVER > $W/ping.txt 2>&1 & P=\$!
    sleep 1
    iperf3 -c \$RTAC_SERVER -t 10 -C cubic -f m > $W/iperf.txt
    kill \$P" >/dev/null 2>"$W/emu.err" || { cat "$W/emu.err" >&2; return 1; }
  python3 - "$W" <<'PY'
import re, statistics, sys
w = sys.argv[1]
mbps = float(re.findall(r"([\d.]+) Mbits/sec.*receiver", open(w + "/iperf.txt").read())[-1])
rtts = [float(x) for x in re.findall(r"time=([\d.]+) ms", open(w + "/ping.txt").read())][10:]
print(mbps, round(statistics.mean(rtts), 1), round(statistics.median(rtts), 1))
PY
}
for i in $(seq "$RUNS"); do
  off=$(one)
  "$BIN/rtac-dev" daemon --uplink -c rtac ${PARAMS:+-p "$PARAMS"} --cgroup $CG 2>"$W/daemon.err" & D=$!
  sleep 1
  on=$(one)
  kill -TERM $D; wait $D || true
  python3 - "$off" "$on" "$(tail -1 "$W/daemon.err")" <<'PY'
import sys
a, b = (list(map(float, x.split())) for x in sys.argv[1:3])
print(f"off: {a[0]:.2f} Mbit/s, ping mean {a[1]:.1f} ms median {a[2]:.1f} ms | --uplink: {b[0]:.2f} Mbit/s "
      f"({100 * b[0] / a[0]:.1f} %), ping mean {b[1]:.1f} ms ({100 * (b[1] - a[1]) / a[1]:+.1f} %) median {b[2]:.1f} ms")
print("  daemon:", sys.argv[3])
PY
done
rmdir $CG 2>/dev/null || true
rm -rf "$W"
