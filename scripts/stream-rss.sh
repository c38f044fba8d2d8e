#!/usr/bin/env bash
# stream-rss.sh measures one stream with the built-in roles on a fresh data
# directory: an embedded Temporal server (`clinevo dev --worker=false`) and a
# worker in its own process (`clinevo worker`), so that the worker's resident
# memory (VmRSS from /proc/PID/status) is the worker's alone. It prints the
# worker's VmRSS after episode SAMPLE_AT and at the end, its peak (VmHWM), the
# stream's wall time, and `clinevo stream timing` for the run. It samples again
# after every further SAMPLE_AT episodes, to show a trend.
#
#   go build -o /tmp/clinevo ./cmd/clinevo
#   CLINEVO=/tmp/clinevo scripts/stream-rss.sh            # 500 cases, stages of 50, sample at 50
#   CLINEVO=/tmp/clinevo scripts/stream-rss.sh 40 50 20   # CASES STAGE_SIZE SAMPLE_AT
#
# PORT chooses the frontend port (default: a random one in 20000–39999);
# KEEP=1 keeps the data directory.
set -euo pipefail

cases=${1:-500}
stage=${2:-50}
at=${3:-50}
bin=${CLINEVO:-clinevo}
port=${PORT:-$((20000 + RANDOM % 20000))}
dir=$(mktemp -d)
export CLINEVO_DATA_DIR=$dir CLINEVO_TEMPORAL_ADDRESS=127.0.0.1:$port

pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	[ "${KEEP:-}" = 1 ] && echo "data directory kept: $dir" || rm -rf "$dir"
}
trap cleanup EXIT

rss() { awk -v k="$2:" '$1 == k {print $2}' "/proc/$1/status"; }

"$bin" dev --worker=false --port "$port" >"$dir/dev.out" 2>&1 &
pids+=($!)
until grep -qs "Temporal frontend" "$dir/dev.out"; do
	kill -0 "${pids[0]}" 2>/dev/null || { cat "$dir/dev.out"; exit 1; }
	sleep 0.2
done
"$bin" worker >"$dir/worker.out" 2>&1 &
worker=$!
pids+=("$worker")

start=$(date +%s.%N)
"$bin" stream start --run r --limit "$cases" --stage-size "$stage" --wait >"$dir/stream.out" 2>&1 &
stream=$!
next=$at
while kill -0 "$stream" 2>/dev/null; do
	cursor=$("$bin" stream status r 2>/dev/null | grep -o '"cursor": [0-9]*' | grep -o '[0-9]*$' || true)
	if [ -n "$cursor" ] && [ "$cursor" -ge "$next" ]; then
		echo "worker VmRSS after episode $cursor: $(rss "$worker" VmRSS) kB"
		next=$((cursor - cursor % at + at))
	fi
	sleep 1
done
wait "$stream" || { cat "$dir/stream.out"; exit 1; }
end=$(date +%s.%N)
echo "worker VmRSS at the end: $(rss "$worker" VmRSS) kB (peak VmHWM $(rss "$worker" VmHWM) kB)"
awk -v s="$start" -v e="$end" -v n="$cases" 'BEGIN {printf "stream of %d cases: %.1f s\n", n, e - s}'
"$bin" stream timing r
