#!/usr/bin/env bash
# Throughput of the stateful hot paths, webhook receive and short-link redirect, on Redis and
# on the embedded store, reported beside redis-benchmark run at the same concurrency in the
# same run (the ratios are the figures). Needs wrk, redis-benchmark and a Redis to use.
#
#   bench/storage.sh [duration-seconds] [connections] [redis-url]
#
# WRENCH_BENCH_RUNS=N (default 1) repeats every measurement N times, redis-benchmark included,
# and reports the run with the median rate: single runs on two shared cores vary by a fifth.
#
# Rate limits are switched off for the servers under test (webhook senders are anonymous),
# except on a third server on Redis whose anonymous quota is counted but set far above what a
# run reaches: its redirect row is the price of counting an anonymous caller.
set -euo pipefail
# A missing tool would print zeros as figures: stop instead.
for tool in wrk redis-benchmark curl python3; do
  command -v "$tool" >/dev/null || { echo "$0: $tool is not installed (Debian: apt-get install wrk redis-tools curl)" >&2; exit 2; }
done
cd "$(dirname "$0")/.."
DURATION="${1:-10}"
CONNECTIONS="${2:-32}"
REDIS_URL="${3:-redis://127.0.0.1:6379/15}"
REDIS_HOST=$(python3 -c 'import sys,urllib.parse as u; p=u.urlparse(sys.argv[1]); print(p.hostname or "127.0.0.1", p.port or 6379, (p.path or "/0").lstrip("/") or 0)' "$REDIS_URL")
read -r RHOST RPORT RDB <<<"$REDIS_HOST"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}"
# WRENCH_BENCH_BIN measures another build (an earlier commit's) with the same procedure.
if [ -z "${WRENCH_BENCH_BIN:-}" ]; then
  cargo build --release --quiet --bin wrench
fi
BIN="${WRENCH_BENCH_BIN:-$CARGO_TARGET_DIR/release/wrench}"
WORK=$(mktemp -d)
PREFIX="wrench-bench-$$:"
# The per-inbox delivery window stays on (it is part of the path measured), far above what
# the run can reach.
export WRENCH_RATE_ANON_PER_MINUTE=0 WRENCH_RATE_ANON_PER_DAY=0 WRENCH_INBOX_RATE_PER_MINUTE=1000000000 WRENCH_LOG=warn
WRENCH_LISTEN=127.0.0.1:18181 WRENCH_REDIS_URL="$REDIS_URL" WRENCH_REDIS_PREFIX="$PREFIX" "$BIN" serve >"$WORK/redis.log" 2>&1 &
R=$!
WRENCH_LISTEN=127.0.0.1:18182 WRENCH_DATA_DIR="$WORK/data" "$BIN" serve >"$WORK/embedded.log" 2>&1 &
E=$!
WRENCH_RATE_ANON_PER_MINUTE=1000000000 WRENCH_RATE_ANON_PER_DAY=1000000000 WRENCH_LISTEN=127.0.0.1:18183 \
  WRENCH_REDIS_URL="$REDIS_URL" WRENCH_REDIS_PREFIX="$PREFIX" "$BIN" serve >"$WORK/counted.log" 2>&1 &
C=$!
cleanup() {
  kill $R $E $C 2>/dev/null || true
  redis-cli -h "$RHOST" -p "$RPORT" -n "$RDB" --scan --pattern "${PREFIX}*" | xargs -r redis-cli -h "$RHOST" -p "$RPORT" -n "$RDB" del >/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
sleep 1

json() { python3 -c "import json,sys; print(json.load(sys.stdin)['data']['$1'])"; }
RUNS="${WRENCH_BENCH_RUNS:-1}"
# Of several "rate ..." lines, the one with the median rate.
median() { sort -n | awk '{l[NR] = $0} END {print l[int((NR + 1) / 2)]}'; }
# Requests a second and p99 latency (ms), the median of $RUNS wrk runs: "rps p99".
rps() { # url [script]
  for _ in $(seq "$RUNS"); do rps_once "$@"; done | median
}
rps_once() { # url [script]
  local args=(-t2 -c"$CONNECTIONS" -d"${DURATION}s" --latency)
  [ -n "${2:-}" ] && args+=(-s "$2")
  wrk "${args[@]}" "$1" >"$WORK/wrk.txt"
  if grep -q "Non-2xx" "$WORK/wrk.txt"; then cat "$WORK/wrk.txt" >&2; exit 1; fi
  local r p
  r=$(awk '/^Requests\/sec/ {print $2}' "$WORK/wrk.txt")
  p=$(awk '$1 == "99%" {v=$2; if (v ~ /us$/) {sub(/us$/, "", v); v/=1000} else if (v ~ /ms$/) {sub(/ms$/, "", v)} else if (v ~ /s$/) {sub(/s$/, "", v); v*=1000}; print v}' "$WORK/wrk.txt")
  echo "$r $p"
}
# Embedded store writes per transaction so far (group commit), from /metrics.
commits() { # port
  { curl -fsS "http://127.0.0.1:$1/metrics" 2>/dev/null || true; } | awk '/^wrench_store_commits_total/ {c=$2} /^wrench_store_committed_writes_total/ {w=$2} END {print c+0, w+0}'
}
declare -A RESULT BATCH
for backend in redis:18181 embedded:18182; do
  name=${backend%%:*}; port=${backend##*:}
  inbox=$(curl -fsS -X POST "http://127.0.0.1:$port/v1/webhook/inbox/create" | json id)
  slug=$(curl -fsS -X POST -H 'Content-Type: application/json' -d '{"url":"https://example.com/target"}' \
    "http://127.0.0.1:$port/v1/short-url/create" | json slug)
  for what in receive redirect paste; do
    # The counted server serves the same Redis data: its redirect only adds the counting.
    if [ "$name" = redis ] && [ "$what" = redirect ]; then
      RESULT[counted-redirect]=$(rps "http://127.0.0.1:18183/v1/short-url/r/$slug")
      BATCH[counted-redirect]=-
    fi
    case $what in
      receive) url="http://127.0.0.1:$port/v1/webhook/inbox/$inbox/receive"; script=bench/receive.lua ;;
      redirect) url="http://127.0.0.1:$port/v1/short-url/r/$slug"; script="" ;;
      paste) url="http://127.0.0.1:$port/v1/paste/create"; script=bench/paste.lua ;;
    esac
    read -r c0 w0 <<<"$(commits "$port")"
    RESULT[$name-$what]=$(rps "$url" $script)
    read -r c1 w1 <<<"$(commits "$port")"
    BATCH[$name-$what]=$(awk -v c=$((c1 - c0)) -v w=$((w1 - w0)) 'BEGIN {if (c > 0) printf "%.1f", w / c; else print "-"}')
  done
done
# redis-benchmark at the same concurrency: LPUSH (what a receive writes) and INCR (a click).
# Its progress lines end in carriage returns; keep the final "requests per second" lines.
RB=$(for _ in $(seq "$RUNS"); do
  redis-benchmark -h "$RHOST" -p "$RPORT" --dbnum "$RDB" -c "$CONNECTIONS" -n 200000 -t lpush,incr -q 2>/dev/null \
    | tr '\r' '\n' | grep 'requests per second'
done)
LPUSH=$(printf '%s\n' "$RB" | awk -F'[: ]+' '/^LPUSH/ {print $2}' | median)
INCR=$(printf '%s\n' "$RB" | awk -F'[: ]+' '/^INCR/ {print $2}' | median)
redis-cli -h "$RHOST" -p "$RPORT" -n "$RDB" del key:__rand_int__ mylist counter:__rand_int__ >/dev/null

echo "machine: $(nproc) cores; wrk -t2 -c$CONNECTIONS -d${DURATION}s; redis-benchmark -c $CONNECTIONS -n 200000; median of $RUNS run(s) each"
printf '%-30s %10s %9s %8s %12s\n' "what" "req/s" "p99 ms" "ratio" "writes/fsync"
printf '%-30s %10.0f\n' "redis-benchmark LPUSH" "$LPUSH"
printf '%-30s %10.0f\n' "redis-benchmark INCR" "$INCR"
for k in redis-receive redis-redirect counted-redirect redis-paste embedded-receive embedded-redirect embedded-paste; do
  read -r r p <<<"${RESULT[$k]}"
  case $k in *redirect) base=$INCR ;; *) base=$LPUSH ;; esac
  printf '%-30s %10.0f %9.2f %8.3f %12s\n' "wrench $k" "$r" "$p" "$(awk -v a="$r" -v b="$base" 'BEGIN {print a/b}')" "${BATCH[$k]}"
done
echo "ratio: receive and paste to redis-benchmark LPUSH, redirect to INCR; writes/fsync: embedded store only"
echo "counted-redirect: a redirect on Redis whose anonymous caller is counted (minute and day windows)"
