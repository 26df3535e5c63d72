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
#   short    short transfers behind a bulk download (a web page loading
#            while an update downloads): one curl downloads a large file,
#            and from 5 s on twenty curls fetch 1 MB one after another
#            (short_behind_bulk.sh), from `rtac-dev serve --cc cubic`; the same
#            four receivers as iperf4, each over the whole client side.
#            Per run: the fetches' median and p90 completion time (curl's
#            time_total), the bulk download's throughput while they ran
#            and the ping median over that time; at the end the RUNS x 20
#            fetches pooled per receiver, with each run's median
#
#   crates/agent/benches/bpf_mustshow.sh [RUNS] [RTAC_PARAMS] [PARTS]
# RTAC_PARAMS default: none, the self-tuning RTAC; bdp=84 (20 Mbit/s x
# 50.2 ms idle RTT / 1500 B) gives the paper's fixed-K RTAC for this path
# ("-" for none when PARTS follows). PARTS: a comma-separated list of
# static, clients (curl and go), iperf4 and short; default static,clients.
# Needs target/release/{rtac-emu,rtac-dev} (cargo build --release -p rtac-emu -p rtac-agent), cc, go;
# short also needs target/release/rtac (cargo build --release -p rtac-cli) and curl.
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

# Short transfers behind a bulk download (short_behind_bulk.sh) through the
# emulated path with a ping (timestamps: -D); prints the run's figures as
# "fetch_s,... bulk_mbps ping_median" and fails on a short fetch or a bulk
# download that ended before the fetches did. $1: a prefix (rtac run ...) or "".
# CUBIC per socket (serve --cc): a namespace's default congestion control
# is the host's and may only be set to one of tcp_allowed_congestion_control.
SHORT_EMU=("$BIN/rtac" emu --down 20mbit --up 20mbit --delay 25ms --queue droptail:packets=2000
           --sysctl net.ipv4.tcp_no_metrics_save=1
           --server "$BIN/rtac-dev serve --listen 0.0.0.0:8080 --dir $W/www --cc cubic")
if part short; then
  mkdir -p "$W/www" "$W/short"
  truncate -s 8G "$W/www/bulk.bin"
  head -c $((1 << 20)) /dev/urandom > "$W/www/f1m.bin"
fi
one_short() {
  "${SHORT_EMU[@]}" -- sh -c "
    ping -D -i 0.1 \$RTAC_SERVER > $W/ping.txt 2>&1 & P=\$!
    sleep 1
    $1 sh $PWD/crates/agent/benches/short_behind_bulk.sh \$RTAC_SERVER $W/short 20 5
    kill \$P" >/dev/null 2>"$W/emu.err" || { cat "$W/emu.err" >&2; return 1; }
  rm -f "$W/short/bulk.bin"
  python3 - "$W" <<'PY'
import re, statistics, sys
w = sys.argv[1]
t0, t1, b0, b1, alive = open(w + "/short/bulk.txt").read().split()
t0, t1 = float(t0), float(t1)
if alive != "1":
    sys.exit("short: the bulk download ended before the last fetch")
fetches = [l.split() for l in open(w + "/short/fetch.txt").read().splitlines()]
bad = [f for f in fetches if f[1:] != ["1048576", "200"]]
if len(fetches) != 20 or bad:
    sys.exit(f"short: {len(fetches)} fetches, failed: {bad}")
rtts = [float(m.group(2)) for m in re.finditer(r"\[([\d.]+)\].*time=([\d.]+) ms", open(w + "/ping.txt").read())
        if t0 <= float(m.group(1)) <= t1]
bulk = (int(b1) - int(b0)) * 8 / (t1 - t0) / 1e6
print(",".join(f[0] for f in fetches), round(bulk, 3), round(statistics.median(rtts), 1))
PY
}

# name line: one run's figures; the fetch times are kept for the summary.
report_short() {
  echo "$2" >> "$W/short-$(echo "$1" | tr ' :=' '___').txt"
  python3 - "$@" <<'PY'
import statistics, sys
name, line = sys.argv[1:3]
f, bulk, ping = line.split()
t = sorted(float(x) for x in f.split(","))
p90 = statistics.quantiles(t, n=10, method="inclusive")[8]
print(f"short    {name:32} fetch median {statistics.median(t):6.3f} s p90 {p90:6.3f} s  "
      f"bulk {float(bulk):6.2f} Mbit/s  ping median {float(ping):6.1f} ms", flush=True)
PY
}

# The pooled summary of every receiver's runs.
summary_short() {
  python3 - "$W" <<'PY'
import os, statistics, sys
print("short    pooled: fetch median, p90 (s); per-run medians; bulk Mbit/s and ping median (ms), median of runs")
for name in ["none", "bpf rtac:budget=connection", "bpf rtac", "daemon rtac"]:
    p = f"{sys.argv[1]}/short-{name.replace(' ', '_').replace(':', '_').replace('=', '_')}.txt"
    if not os.path.exists(p):
        continue
    runs = [l.split() for l in open(p).read().splitlines()]
    ts = [[float(x) for x in r[0].split(",")] for r in runs]
    pooled = sorted(x for t in ts for x in t)
    p90 = statistics.quantiles(pooled, n=10, method="inclusive")[8]
    per = ", ".join(f"{statistics.median(t):.3f}" for t in ts)
    bulk = statistics.median(float(r[1]) for r in runs)
    ping = statistics.median(float(r[2]) for r in runs)
    print(f"short    {name:32} n={len(pooled):3} median {statistics.median(pooled):6.3f} p90 {p90:6.3f} "
          f"({per})  bulk {bulk:6.2f}  ping {ping:6.1f}", flush=True)
PY
}

CG=/sys/fs/cgroup/unified/rtac-mustshow
mkdir -p $CG
# The receiving program joins the daemon's cgroup first: `echo $$ > cgroup.procs; exec ...`.
INCG="sh -c 'echo \$\$ > $CG/cgroup.procs; exec \"\$@\"' sh"
# in_daemon FN ARGS...: FN ARGS... "$INCG" run under `rtac-dev daemon -c rtac`
# on that cgroup; prints FN's line (the daemon's stderr is in $W/daemon.err).
in_daemon() {
  local pid line
  "$BIN/rtac-dev" daemon -c rtac ${PARAMS:+-p "$PARAMS"} --cgroup $CG >&2 2>"$W/daemon.err" & pid=$!
  sleep 1
  line=$("$@" "$INCG")
  kill -TERM $pid; wait $pid || true
  printf '%s\n' "$line"
}
for i in $(seq "$RUNS"); do
  if part iperf4; then
    base=$(one_iperf "")
    report_iperf none "" "$base"
    for ctl in "rtac:budget=connection" "rtac"; do
      line=$(one_iperf "$BIN/rtac-dev run --mode bpf -c $ctl ${PARAMS:+-p $PARAMS} --")
      report_iperf "bpf $ctl" "$base" "$line"
    done
    line=$(in_daemon one_iperf)
    report_iperf "daemon rtac" "$base" "$line"
    grep -o "window budgets.*" "$W/daemon.err" | head -1 || true
  fi
  if part short; then
    line=$(one_short "")
    report_short none "$line"
    for ctl in "rtac:budget=connection" "rtac"; do
      line=$(one_short "$BIN/rtac-dev run --mode bpf -c $ctl ${PARAMS:+-p $PARAMS} --")
      report_short "bpf $ctl" "$line"
    done
    line=$(in_daemon one_short)
    report_short "daemon rtac" "$line"
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
    base=$(one "$cmd" "$INCG")
    report "$client" none "" "$base"
    ctl=$(in_daemon one "$cmd")
    report "$client" "daemon rtac $PARAMS" "$base" "$ctl"
  done
done
part short && summary_short
rmdir $CG 2>/dev/null || true
rm -rf "$W"
