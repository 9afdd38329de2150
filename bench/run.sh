#!/usr/bin/env bash
# Throughput and latency of a cheap operation through wrench's whole pipeline, against a bare
# poem handler doing the same work, measured in one run on one machine. Needs `wrk`.
#
#   bench/run.sh [duration-seconds] [connections] [threads]
#
# Both servers run the release build with the same runtime; wrk runs alternately against
# each, twice, and the better of the two rounds counts for each side. wrench runs twice: with
# logging at warn, and at the default info level, which writes one line per request (to a
# file here, as a service manager or log shipper would collect it).
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION="${1:-10}"
CONNECTIONS="${2:-64}"
THREADS="${3:-2}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}"
cargo build --release --quiet --bin wrench --example bare_handler
BIN="$CARGO_TARGET_DIR/release"
WORK=$(mktemp -d)
KEYS=$("$BIN/wrench" keys new)
export WRENCH_BENCH_KEY=$(printf '%s\n' "$KEYS" | awk '/^key:/ {print $2}')
export WRENCH_API_KEYS=$(printf '%s\n' "$KEYS" | awk '/^digest:/ {print $2}')
# One data directory per instance: the embedded store's file is locked by the one that opens it.
WRENCH_DATA_DIR="$WORK/data-warn" WRENCH_LISTEN=127.0.0.1:18081 WRENCH_LOG=warn "$BIN/wrench" serve >"$WORK/wrench.log" 2>&1 &
W=$!
"$BIN/examples/bare_handler" 127.0.0.1:18082 >"$WORK/bare.log" 2>&1 &
B=$!
WRENCH_DATA_DIR="$WORK/data-info" WRENCH_LISTEN=127.0.0.1:18083 WRENCH_LOG=info "$BIN/wrench" serve >"$WORK/wrench-info.log" 2>&1 &
L=$!
trap 'kill $W $B $L 2>/dev/null || true; rm -rf "$WORK"' EXIT
for port in 18081 18082 18083; do # wait until each listens (at most 10 s)
  for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
done
curl -fsS -X POST -H 'Content-Type: application/json' -H "X-API-Key: $WRENCH_BENCH_KEY" -d '{"text":"x"}' http://127.0.0.1:18081/v1/base64/encode >/dev/null
curl -fsS -X POST -H 'Content-Type: application/json' -d '{"text":"x"}' http://127.0.0.1:18082/v1/base64/encode >/dev/null

run() { # name port -> "rps p99_ms"
  wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency -s bench/post.lua "http://127.0.0.1:$2/v1/base64/encode" >"$WORK/$1.txt"
  local rps p99
  rps=$(awk '/^Requests\/sec/ {print $2}' "$WORK/$1.txt")
  p99=$(awk '$1 == "99%" {v=$2; if (v ~ /us$/) {sub(/us/,"",v); v=v/1000} else if (v ~ /ms$/) {sub(/ms/,"",v)} else if (v ~ /s$/) {sub(/s/,"",v); v=v*1000}; print v}' "$WORK/$1.txt")
  grep -q "Non-2xx" "$WORK/$1.txt" && { echo "non-2xx answers from $1" >&2; cat "$WORK/$1.txt" >&2; exit 1; }
  echo "$rps $p99"
}
best() { # keeps the round with more requests per second
  awk 'NR==1 || $1>r {r=$1; p=$2} END {print r, p}'
}
W_RESULTS=""; B_RESULTS=""; L_RESULTS=""
for round in 1 2; do
  B_RESULTS+="$(run bare-$round 18082)"$'\n'
  W_RESULTS+="$(run wrench-$round 18081)"$'\n'
  L_RESULTS+="$(run wrench-info-$round 18083)"$'\n'
done
read -r BR BP < <(printf '%s' "$B_RESULTS" | best)
read -r WR WP < <(printf '%s' "$W_RESULTS" | best)
read -r LR LP < <(printf '%s' "$L_RESULTS" | best)
echo "machine: $(nproc) cores; wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s, POST /v1/base64/encode (58-byte body)"
printf '%-14s %12s %10s\n' "server" "req/s" "p99 ms"
printf '%-14s %12.0f %10.2f\n' "bare poem" "$BR" "$BP"
printf '%-14s %12.0f %10.2f\n' "wrench" "$WR" "$WP"
printf '%-14s %12.0f %10.2f\n' "wrench, info" "$LR" "$LP"
awk -v w="$WR" -v b="$BR" -v wp="$WP" -v bp="$BP" 'BEGIN {printf "throughput ratio (wrench / bare): %.3f\np99 ratio (wrench / bare): %.3f\n", w/b, wp/bp}'
awk -v w="$LR" -v b="$BR" -v wp="$LP" -v bp="$BP" 'BEGIN {printf "throughput ratio (wrench with request logs / bare): %.3f\np99 ratio (wrench with request logs / bare): %.3f\n", w/b, wp/bp}'
