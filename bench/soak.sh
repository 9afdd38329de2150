#!/usr/bin/env bash
# Memory and store size over a long soak of mixed requests, on the embedded store and on Redis
# (bench/soak.py says what the clients do and what is sampled). BENCHMARKS.md, "Faults and a
# long soak", has the figures and the goal: RSS under 160 MiB on each store, growing under 10 %
# over the second half, and a store that stops growing once the live data stops growing.
#
#   bench/soak.sh [seconds] [clients] [redis-url]
#
# WRENCH_BENCH_BIN measures another build (an earlier commit's) with the same procedure;
# WRENCH_BENCH_SETTINGS passes extra settings to the server (NAME=VALUE,NAME=VALUE).
set -euo pipefail
for tool in python3 redis-cli; do
  command -v "$tool" >/dev/null || { echo "$0: $tool is not installed (Debian: apt-get install python3 redis-tools)" >&2; exit 2; }
done
cd "$(dirname "$0")/.."
SECONDS_EACH="${1:-600}"
CLIENTS="${2:-8}"
REDIS_URL="${3:-redis://127.0.0.1:6379/15}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}"
if [ -z "${WRENCH_BENCH_BIN:-}" ]; then
  cargo build --release --quiet --bin wrench
fi
BIN="${WRENCH_BENCH_BIN:-$CARGO_TARGET_DIR/release/wrench}"
for store in embedded redis; do
  python3 bench/soak.py --bin "$BIN" --store "$store" --redis-url "$REDIS_URL" --seconds "$SECONDS_EACH" \
    --clients "$CLIENTS" --settings "${WRENCH_BENCH_SETTINGS:-}"
done
