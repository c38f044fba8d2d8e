#!/usr/bin/env bash
# reproduce.sh runs shipped experiments with the built-in roles on a fresh
# data directory and an embedded Temporal server, and writes each one's
# report: the numbers the README and docs/ quote come from these runs.
#
#   go build -o /tmp/clinevo ./cmd/clinevo
#   CLINEVO=/tmp/clinevo scripts/reproduce.sh OUT SPEC...
#   CLINEVO=/tmp/clinevo scripts/reproduce.sh /tmp/repro experiments/quick.yaml benchmarks/gpagent/gpagentbench.yaml
#
# Each SPEC's report goes to OUT/<experiment name>/ (report.json, index.html,
# CSV files); the experiment's summary table to OUT/<experiment name>.txt.
# PORT chooses the frontend port (default: a random one in 20000–39999);
# KEEP=1 keeps the data directory.
set -euo pipefail

[ $# -ge 2 ] || { sed -n '2,13p' "$0"; exit 2; }
out=$1
shift
bin=${CLINEVO:-clinevo}
port=${PORT:-$((20000 + RANDOM % 20000))}
dir=$(mktemp -d)
export CLINEVO_DATA_DIR=$dir CLINEVO_TEMPORAL_ADDRESS=127.0.0.1:$port
mkdir -p "$out"

pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	[ "${KEEP:-}" = 1 ] && echo "data directory kept: $dir" || rm -rf "$dir"
}
trap cleanup EXIT

"$bin" dev --port "$port" >"$dir/dev.out" 2>&1 &
pids+=($!)
until grep -qs "Temporal frontend" "$dir/dev.out"; do
	kill -0 "${pids[0]}" 2>/dev/null || { cat "$dir/dev.out"; exit 1; }
	sleep 0.2
done

for spec in "$@"; do
	name=$(awk '/^name:/ {print $2; exit}' "$spec")
	start=$(date +%s)
	"$bin" experiment run "$spec" --wait >"$out/$name.txt" 2>&1 || { cat "$out/$name.txt"; exit 1; }
	"$bin" report "$name" --out "$out/$name" >>"$out/$name.txt" 2>&1
	echo "$name: $(($(date +%s) - start)) s, report in $out/$name"
done
