#!/usr/bin/env bash
# The BPF mode's Must-show runs through `rtac emu` (root): a Linux CUBIC
# sender behind a 20 Mbit/s link with 25 ms each way and a 2000-packet
# DropTail queue; a concurrent ping from the receiver every 0.1 s.
#   static   a statically linked C receiver (tests/recv.c, cc -static):
#            uncontrolled, then under `rtac run --mode bpf --controller rtac`
#   curl, go curl and a Go (standard library) HTTP client under
#            `rtac daemon --cgroup <the client's cgroup>`
# Each line: receiver, controller, bytes, seconds, Mbit/s, ping mean and
# median (ms), and for controlled runs the ratios to the uncontrolled run
# of the same receiver just before.
#
#   iperf4   four parallel CUBIC downloads of one program (iperf3 -P 4 -R,
#            $SECS s, default 30): uncontrolled, under `rtac run --mode bpf`
#            with one controller per connection (rtac:budget=connection)
#            and with one window budget for the access link (rtac), and
#            under `rtac daemon` on the client's cgroup; ping median and
#            throughput against the uncontrolled run just before
#
#   crates/agent/benches/bpf_mustshow.sh [RUNS] [RTAC_PARAMS] [PARTS]
# RTAC_PARAMS default: none, the self-tuning RTAC; bdp=84 (20 Mbit/s x
# 50.2 ms idle RTT / 1500 B) gives the paper's fixed-K RTAC for this path
# ("-" for none when PARTS follows). PARTS: a comma-separated list of
# static, clients (curl and go) and iperf4; default static,clients.
# Needs target/release/{rtac-emu,rtac-dev} (cargo build --release -p rtac-emu -p rtac-agent), cc, go.
set -euo pipefail
cd "$(dirname "$0")/../../.."
RUNS=${1:-3}
PARAMS=${2:-}
[ "$PARAMS" = - ] && PARAMS=""
PARTS=${3:-static,clients}
SECS=${SECS:-30}
part() { [[ ",$PARTS," == *",$1,"* ]]; }
BIN=$PWD/target/release
W=$(mktemp -d /tmp/rtac-mustshow.XXXX)
head -c $((24 << 20)) /dev/urandom > "$W/f.bin"
part static && cc -static -O2 -o "$W/recv" crates/agent/tests/recv.c
part clients && (cd crates/agent/tests/goget && CGO_ENABLED=0 GOFLAGS=-mod=mod GOPROXY=off go build -o "$W/goget" .)
EMU=("$BIN/rtac-emu" emu --down 20mbit --up 20mbit --delay 25ms --queue droptail:packets=2000
     --sysctl net.ipv4.tcp_no_metrics_save=1
     --server "$BIN/rtac-dev serve --listen 0.0.0.0:8080 --dir $W --cc cubic")

# One download through the emulated path; prints "bytes seconds ping_mean ping_median".
one() { # $1: the receiving command (run in the client namespace), $2: a prefix (rtac run ...) or ""
  "${EMU[@]}" -- sh -c "
    ping -i 0.1 \$RTAC_SERVER > $W/ping.txt 2>&1 & P=\$!
    sleep 1
    t0=\$(date +%s.%N)
    $2 $1 > $W/out.txt
    t1=\$(date +%s.%N)
    kill \$P
    echo \$t0 \$t1 > $W/times.txt" >/dev/null 2>"$W/emu.err" || { cat "$W/emu.err" >&2; return 1; }
  python3 - "$W" <<'PY'
import re, statistics, sys
w = sys.argv[1]
t0, t1 = map(float, open(w + "/times.txt").read().split())
out = open(w + "/out.txt").read()
m = re.search(r"DONE (\d+)", out)
got = int(m.group(1)) if m else len(open(w + "/got.bin", "rb").read())
rtts = [float(x) for x in re.findall(r"time=([\d.]+) ms", open(w + "/ping.txt").read())]
# Pings during the transfer only: the first second was idle.
busy = rtts[10:]
print(got, round(t1 - t0, 3), round(statistics.mean(busy), 1), round(statistics.median(busy), 1))
PY
}

report() { # name controller base_line line
  python3 - "$@" <<'PY'
import sys
name, ctl, base, line = sys.argv[1:5]
b, s, p, m = map(float, line.split())
mbps = b * 8 / s / 1e6
out = f"{name:8} {ctl:22} {int(b):>9} B {s:7.2f} s {mbps:6.2f} Mbit/s  ping mean {p:6.1f} ms median {m:6.1f} ms"
if base:
    bb, bs, bp, bm = map(float, base.split())
    out += f"   throughput {100 * mbps / (bb * 8 / bs / 1e6):5.1f} %  ping mean {100 * (p - bp) / bp:+6.1f} %"
print(out, flush=True)
PY
}

# iperf3 -P 4 -R through the emulated path with a ping; prints
# "Mbit/s ping_mean ping_median". $1: a prefix (rtac run ...) or "".
IPERF_EMU=("$BIN/rtac-emu" emu --down 20mbit --up 20mbit --delay 25ms --queue droptail:packets=2000
           --sysctl net.ipv4.tcp_no_metrics_save=1 --server "iperf3 -s -p 5201")
one_iperf() {
  "${IPERF_EMU[@]}" -- sh -c "
    ping -i 0.1 \$RTAC_SERVER > $W/ping.txt 2>&1 & P=\$!
    sleep 1
    $1 iperf3 -c \$RTAC_SERVER -p 5201 -P 4 -R -C cubic -t $SECS -J > $W/iperf.json
    kill \$P" >/dev/null 2>"$W/emu.err" || { cat "$W/emu.err" >&2; return 1; }
  python3 - "$W" <<'PY'
import json, re, statistics, sys
w = sys.argv[1]
mbps = json.load(open(w + "/iperf.json"))["end"]["sum_received"]["bits_per_second"] / 1e6
# Pings during the transfer only: the first second was idle.
rtts = [float(x) for x in re.findall(r"time=([\d.]+) ms", open(w + "/ping.txt").read())][10:]
print(round(mbps, 3), round(statistics.mean(rtts), 1), round(statistics.median(rtts), 1))
PY
}

report_iperf() { # name base_line line
  python3 - "$@" <<'PY'
import sys
name, base, line = sys.argv[1:4]
m, p, med = map(float, line.split())
out = f"iperf4   {name:32} {m:6.2f} Mbit/s  ping mean {p:6.1f} ms median {med:6.1f} ms"
if base:
    bm, bp, bmed = map(float, base.split())
    out += f"   throughput {100 * m / bm:5.1f} %  ping median {100 * (med - bmed) / bmed:+6.1f} %"
print(out, flush=True)
PY
}

CG=/sys/fs/cgroup/unified/rtac-mustshow
mkdir -p $CG
DAEMON=""
for i in $(seq "$RUNS"); do
  if part iperf4; then
    base=$(one_iperf "")
    report_iperf none "" "$base"
    for ctl in "rtac:budget=connection" "rtac"; do
      line=$(one_iperf "$BIN/rtac-dev run --mode bpf -c $ctl ${PARAMS:+-p $PARAMS} --")
      report_iperf "bpf $ctl" "$base" "$line"
    done
    incg="sh -c 'echo \$\$ > $CG/cgroup.procs; exec \"\$@\"' sh"
    "$BIN/rtac-dev" daemon -c rtac ${PARAMS:+-p "$PARAMS"} --cgroup $CG 2>"$W/daemon.err" & DAEMON=$!
    sleep 1
    line=$(one_iperf "$incg")
    kill -TERM $DAEMON; wait $DAEMON || true
    report_iperf "daemon rtac" "$base" "$line"
    grep -o "window budgets.*" "$W/daemon.err" | head -1 || true
  fi
  if part static; then
    base=$(one "$W/recv \$RTAC_SERVER 8080 /f.bin" "")
    report static none "" "$base"
    ctl=$(one "$W/recv \$RTAC_SERVER 8080 /f.bin" "$BIN/rtac-dev run --mode bpf -c rtac ${PARAMS:+-p $PARAMS} --")
    report static "bpf rtac $PARAMS" "$base" "$ctl"
  fi
  part clients || continue
  for client in curl go; do
    case $client in
      curl) cmd="curl -s -o $W/got.bin http://\$RTAC_SERVER:8080/f.bin" ;;
      go) cmd="$W/goget http://\$RTAC_SERVER:8080/f.bin $W/got.bin" ;;
    esac
    # The client joins the daemon's cgroup first: `echo \$\$ > cgroup.procs; exec ...`.
    incg="sh -c 'echo \$\$ > $CG/cgroup.procs; exec \"\$@\"' sh"
    base=$(one "$cmd" "$incg")
    report "$client" none "" "$base"
    "$BIN/rtac-dev" daemon -c rtac ${PARAMS:+-p "$PARAMS"} --cgroup $CG 2>"$W/daemon.err" & DAEMON=$!
    sleep 1
    ctl=$(one "$cmd" "$incg")
    kill -TERM $DAEMON; wait $DAEMON || true
    report "$client" "daemon rtac $PARAMS" "$base" "$ctl"
  done
done
rmdir $CG 2>/dev/null || true
rm -rf "$W"
