#!/bin/sh
# The client side of bpf_mustshow.sh's `short` part: short transfers behind
# a bulk download, as a web page that loads while an update downloads.
# Run in the client namespace of `rtac emu`, whole under the controller
# being measured (`rtac run ... -- sh short_behind_bulk.sh ...`, or in the
# cgroup of `rtac daemon`), against an HTTP server on port 8080 of SERVER
# that serves /bulk.bin (large enough to outlast the run) and /f1m.bin.
#
#   short_behind_bulk.sh SERVER DIR [FETCHES] [WARMUP_S]
#
# One curl downloads bulk.bin into DIR/bulk.bin; after WARMUP_S seconds (default 5)
# FETCHES curls (default 20) fetch f1m.bin one after another, each on a
# new connection. Writes DIR/fetch.txt, one line per fetch: curl's
# time_total (s, connection set-up included), size_download, http_code;
# and DIR/bulk.txt: "t0 t1 b0 b1 alive", the wall clock (s) and the bulk
# file's size (B) when the first fetch started and when the last ended,
# alive 1 when the bulk download was still running at t1.
set -eu
S=$1
D=$2
N=${3:-20}
WARM=${4:-5}
: > "$D/fetch.txt"
curl -s -o "$D/bulk.bin" "http://$S:8080/bulk.bin" &
B=$!
sleep "$WARM"
t0=$(date +%s.%N)
b0=$(stat -c %s "$D/bulk.bin")
i=0
while [ "$i" -lt "$N" ]; do
  i=$((i + 1))
  curl -s -o /dev/null -w '%{time_total} %{size_download} %{http_code}\n' \
    "http://$S:8080/f1m.bin" >> "$D/fetch.txt"
done
t1=$(date +%s.%N)
b1=$(stat -c %s "$D/bulk.bin")
alive=0
kill "$B" 2>/dev/null && alive=1
wait "$B" || true
echo "$t0 $t1 $b0 $b1 $alive" > "$D/bulk.txt"
