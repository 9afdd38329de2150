#!/usr/bin/env bash
# Where a stateful request's CPU goes: microseconds of CPU per request spent by the wrench
# server, by redis-server and by wrk during one run, read from /proc before and after. The
# ratios bench/storage.sh prints compare wrench with redis-benchmark's bare commands; this
# says what each request costs each process, which is what bounds those ratios on a machine
# whose cores the three share. Needs wrk, a local redis-server, curl and python3.
#
#   bench/cpu_split.sh receive|redirect redis|embedded [seconds] [connections]
#
# WRENCH_BENCH_BIN measures another build (an earlier commit's) with the same procedure.
set -euo pipefail
for tool in wrk redis-cli curl python3; do
  command -v "$tool" >/dev/null || { echo "$0: $tool is not installed" >&2; exit 2; }
done
cd "$(dirname "$0")/.."
WHAT="$1"; STORE="$2"; DURATION="${3:-10}"; CONNECTIONS="${4:-32}"
REDIS_URL="${WRENCH_BENCH_REDIS_URL:-redis://127.0.0.1:6379/15}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}"
if [ -z "${WRENCH_BENCH_BIN:-}" ]; then
  cargo build --release --quiet --bin wrench
fi
BIN="${WRENCH_BENCH_BIN:-$CARGO_TARGET_DIR/release/wrench}"
REDIS_PID=$(pgrep -x redis-server | head -1 || true)
[ -n "$REDIS_PID" ] || { echo "$0: no local redis-server process to measure" >&2; exit 2; }
WORK=$(mktemp -d)
PORT=18191
PREFIX="wrench-split-$$:"
export WRENCH_RATE_ANON_PER_MINUTE=0 WRENCH_RATE_ANON_PER_DAY=0 WRENCH_INBOX_RATE_PER_MINUTE=1000000000 WRENCH_LOG=warn
case $STORE in
  redis) WRENCH_LISTEN=127.0.0.1:$PORT WRENCH_REDIS_URL="$REDIS_URL" WRENCH_REDIS_PREFIX="$PREFIX" "$BIN" serve >"$WORK/log" 2>&1 & ;;
  embedded) WRENCH_LISTEN=127.0.0.1:$PORT WRENCH_DATA_DIR="$WORK/data" "$BIN" serve >"$WORK/log" 2>&1 & ;;
  *) echo "$0: the store is redis or embedded" >&2; exit 2 ;;
esac
SERVER=$!
cleanup() {
  kill "$SERVER" 2>/dev/null || true
  redis-cli -u "$REDIS_URL" --scan --pattern "${PREFIX}*" | xargs -r redis-cli -u "$REDIS_URL" del >/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
sleep 1.5
json() { python3 -c "import json,sys; print(json.load(sys.stdin)['data']['$1'])"; }
case $WHAT in
  receive)
    id=$(curl -fsS -X POST "http://127.0.0.1:$PORT/v1/webhook/inbox/create" | json id)
    URL="http://127.0.0.1:$PORT/v1/webhook/inbox/$id/receive"; SCRIPT=(-s bench/receive.lua) ;;
  redirect)
    slug=$(curl -fsS -X POST -H 'Content-Type: application/json' -d '{"url":"https://example.com/target"}' \
      "http://127.0.0.1:$PORT/v1/short-url/create" | json slug)
    URL="http://127.0.0.1:$PORT/v1/short-url/r/$slug"; SCRIPT=() ;;
  *) echo "$0: what is receive or redirect" >&2; exit 2 ;;
esac
wrk -t2 -c"$CONNECTIONS" -d2s "${SCRIPT[@]}" "$URL" >/dev/null # warm up
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; } # user + system, in clock ticks
busy() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8 + $9}' /proc/stat; }
since_boot() { awk '{print $1}' /proc/uptime; }
s0=$(ticks "$SERVER"); r0=$(ticks "$REDIS_PID"); b0=$(busy); t0=$(since_boot)
python3 - "$WORK/wrk.times" wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" "${SCRIPT[@]}" "$URL" >"$WORK/wrk" <<'PY'
import resource, subprocess, sys
subprocess.run(sys.argv[2:], check=True)
u = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1], "w").write(f"{u.ru_utime + u.ru_stime}\n")
PY
s1=$(ticks "$SERVER"); r1=$(ticks "$REDIS_PID"); b1=$(busy); t1=$(since_boot)
if grep -q "Non-2xx" "$WORK/wrk"; then cat "$WORK/wrk" >&2; exit 1; fi
python3 - "$WORK/wrk" "$(cat "$WORK/wrk.times")" "$(getconf CLK_TCK)" "$(nproc)" \
  "$((s1 - s0))" "$((r1 - r0))" "$((b1 - b0))" "$WHAT" "$STORE" "$DURATION" "$t0" "$t1" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
n = int(re.search(r"(\d+) requests in", text).group(1))
wrk_s, hz, cores = float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
server, redis, busy = (int(x) / hz for x in sys.argv[5:8])
what, store, seconds = sys.argv[8], sys.argv[9], float(sys.argv[10])
elapsed = float(sys.argv[12]) - float(sys.argv[11])
us = lambda s: s / n * 1e6
print(f"{what} on {store}: {n / seconds:,.0f} requests/s; CPU per request, µs: wrench {us(server):.1f}, "
      f"redis-server {us(redis):.1f}, wrk {us(wrk_s):.1f}; the {cores} cores were busy "
      f"{100 * busy / (cores * elapsed):.0f}% of the run")
PY
