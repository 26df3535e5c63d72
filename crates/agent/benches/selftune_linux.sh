#!/usr/bin/env bash
# The self-tuning RTAC receiver (`rtac run -c rtac`, no parameter) against
# the default Linux receiver on real Linux TCP through `rtac emu` (root):
# `iperf3 -c $RTAC_SERVER -R -C cubic -t SECS -J` as the receiving program,
# a Linux CUBIC sender (`iperf3 -s`), and a ping from the receiver every
# 0.1 s whose replies queue behind the data.
#
#   crates/agent/benches/selftune_linux.sh [RUNS] [CASE...]
#
# CASE (default: 20mbit tmobile att fast:1gbit):
#   20mbit         20 Mbit/s each way, 25 ms each way, 2000-packet DropTail
#   tmobile, att, verizon, evdo
#                  the Mahimahi trace traces/mahimahi/<trace>.{down,up},
#                  20 ms each way, 1000-packet DropTail
#   fast:RATE      RATE each way (e.g. 1gbit, 500mbit), 40 ms each way,
#                  a DropTail queue of $FAST_QUEUE packets (default 30000);
#                  the sender's tcp_wmem maximum is raised to 128 MB so that
#                  the sender, not its buffer, fills the path
# Receivers per case, one round per run, in this order: the default
# receiver (no rtac), `rtac run -c rtac` (the default --mode auto, which
# takes the BPF mode where it loads), the same with `--mode preload`,
# `rtac run -c drwa`, and for 20mbit
# the paper's fixed K `rtac run -c rtac -p bdp=84` (20 Mbit/s x 50.2 ms
# idle RTT / 1500 B). Each line: case, receiver, Mbit/s (iperf3's
# end.sum_received), ping mean and median (ms, replies received while the
# transfer ran), the emulator's 99th-percentile downlink timing error, and
# for controlled receivers the throughput and ping mean as a ratio of the
# default run of the same round (just before). At the end: the median of
# each ratio over the runs. `rtac run`'s stderr (mode chosen, limits raised)
# is kept in $OUT/<case>-<receiver>-<run>.err, the emulator's summary in
# .stats. RTAC_BIN (default target/release) holds `rtac`; SECS defaults
# to 20; OUT to a fresh /tmp/rtac-selftune.XXXX.
set -euo pipefail
cd "$(dirname "$0")/../../.."
RUNS=${1:-3}
shift || true
CASES=("$@")
[ ${#CASES[@]} -gt 0 ] || CASES=(20mbit tmobile att fast:1gbit)
BIN=${RTAC_BIN:-$PWD/target/release}
SECS=${SECS:-20}
FAST_QUEUE=${FAST_QUEUE:-30000}
OUT=${OUT:-$(mktemp -d /tmp/rtac-selftune.XXXX)}
mkdir -p "$OUT"
TRACES=$PWD/traces/mahimahi
command -v iperf3 >/dev/null && command -v ping >/dev/null || { echo "needs iperf3 and ping" >&2; exit 1; }
echo "# $(date -u +%FT%TZ) rtac $("$BIN/rtac" --version 2>/dev/null || echo '?') commit $(git log -1 --format=%h 2>/dev/null || echo '?'); load: $(cut -d' ' -f1-3 /proc/loadavg); out $OUT"

link() { # $1: case -> the emulator's link options
  case $1 in
    20mbit) echo "--down 20mbit --up 20mbit --delay 25ms --queue droptail:packets=2000" ;;
    tmobile) echo "--down $TRACES/TMobile-LTE-short.down --up $TRACES/TMobile-LTE-short.up --delay 20ms --queue droptail:packets=1000" ;;
    att) echo "--down $TRACES/ATT-LTE-driving.down --up $TRACES/ATT-LTE-driving.up --delay 20ms --queue droptail:packets=1000" ;;
    verizon) echo "--down $TRACES/Verizon-LTE-short.down --up $TRACES/Verizon-LTE-short.up --delay 20ms --queue droptail:packets=1000" ;;
    evdo) echo "--down $TRACES/Verizon-EVDO-driving.down --up $TRACES/Verizon-EVDO-driving.up --delay 20ms --queue droptail:packets=1000" ;;
    fast:*) echo "--down ${1#fast:} --up ${1#fast:} --delay 40ms --queue droptail:packets=$FAST_QUEUE" ;;
    *) echo "unknown case $1" >&2; return 2 ;;
  esac
}

# One transfer; prints "mbps ping_mean ping_median timing_p99_us".
one() { # $1: case, $2: tag for files, $3: prefix ("" or "rtac run ... --")
  local tag=$OUT/$2 extra=()
  case $1 in fast:*) extra=(--sysctl "net.ipv4.tcp_wmem=4096 16384 134217728") ;; esac
  # shellcheck disable=SC2046
  "$BIN/rtac" emu $(link "$1") "${extra[@]}" \
      --sysctl net.ipv4.tcp_no_metrics_save=1 --sysctl net.ipv4.tcp_congestion_control=reno \
      --stats "$tag.stats" --server 'iperf3 -s' -- sh -c "
    ping -D -i 0.1 \$RTAC_SERVER > $tag.ping 2>&1 & P=\$!
    sleep 1
    date +%s.%N > $tag.t
    $3 iperf3 -c \$RTAC_SERVER -R -C cubic -t $SECS -J > $tag.json 2> $tag.err
    date +%s.%N >> $tag.t
    kill \$P" >/dev/null 2>"$tag.emu" || { tail -5 "$tag.emu" >&2; return 1; }
  python3 - "$tag" <<'PY'
import json, re, statistics, sys
tag = sys.argv[1]
t0, t1 = map(float, open(tag + ".t").read().split())
mbps = json.load(open(tag + ".json"))["end"]["sum_received"]["bits_per_second"] / 1e6
# Replies to pings sent while the transfer ran ([unix time] ... time=X ms).
rtts = [float(r) for ts, r in re.findall(r"\[([\d.]+)\].*time=([\d.]+) ms", open(tag + ".ping").read())
        if t0 + 0.5 <= float(ts) - float(r) / 1e3 <= t1]
stats = json.load(open(tag + ".stats"))
down = stats.get("down", {})
late = f'{down.get("lateness_us", {}).get("p99", float("nan")):.0f}' + ("" if down.get("kept_up", True) else "!")
print(round(mbps, 3), round(statistics.mean(rtts), 1), round(statistics.median(rtts), 1), late)
PY
}

receivers() { # $1: case -> "label|prefix" lines
  echo "default|"
  echo "rtac|$BIN/rtac run -c rtac --"
  echo "rtac-preload|$BIN/rtac run --mode preload -c rtac --"
  [ "$1" = 20mbit ] && echo "rtac-bdp84|$BIN/rtac run -c rtac -p bdp=84 --"
  echo "drwa|$BIN/rtac run -c drwa --"
}

RESULTS=$OUT/results.txt
: > "$RESULTS"
for c in "${CASES[@]}"; do
  for i in $(seq "$RUNS"); do
    base=""
    while IFS='|' read -r label prefix; do
      line=$(one "$c" "$c-$label-$i" "$prefix")
      read -r mbps pm pmed te <<<"$line"
      msg=$(printf "%-12s %-12s run %d  %8.2f Mbit/s  ping mean %7.1f ms median %7.1f ms  lateness p99 %s us" \
            "$c" "$label" "$i" "$mbps" "$pm" "$pmed" "$te")
      if [ -z "$base" ]; then
        base="$mbps $pm"
      else
        read -r bm bp <<<"$base"
        tr=$(python3 -c "print(round(100*$mbps/$bm,1))")
        pr=$(python3 -c "print(round(100*$pm/$bp,1))")
        msg="$msg   throughput $tr %  ping mean $pr % of default"
        echo "$c $label $i $mbps $pm $tr $pr" >> "$RESULTS"
      fi
      [ "$label" = default ] && echo "$c $label $i $mbps $pm 100 100" >> "$RESULTS"
      mode=$(grep -h '^rtac: mode\|raised' "$OUT/$c-$label-$i.err" 2>/dev/null | sed 's/^rtac: //' | tr '\n' ' ' | cut -c1-160 || true)
      echo "$msg${mode:+   [$mode]}"
    done < <(receivers "$c")
  done
done

echo "# medians over $RUNS runs ($(cut -d' ' -f1-3 /proc/loadavg))"
python3 - "$RESULTS" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    c, label, i, mbps, pm, tr, pr = line.split()
    rows.setdefault((c, label), []).append(tuple(map(float, (mbps, pm, tr, pr))))
for (c, label), rs in rows.items():
    med = [statistics.median(x) for x in zip(*rs)]
    per = ", ".join(f"{r[2]:.1f}/{r[3]:.1f}" for r in rs)
    print(f"{c:12} {label:12} {med[0]:8.2f} Mbit/s  ping mean {med[1]:7.1f} ms  "
          f"throughput {med[2]:5.1f} %  ping {med[3]:5.1f} % of default   (per run thr/ping %: {per})")
PY
