#!/usr/bin/env bash
# Footprint and speed in one run: every figure BENCHMARKS.md's "Footprint and speed" table
# tracks, each measured here and now, speeds as ratios to baselines measured in the same run.
# Needs wrk, redis-benchmark, curl, python3 and a Redis to use.
#
#   bench/report.sh [duration-seconds] [connections] [redis-url]
#
# Sections, in order:
# 1. the release binary's size;
# 2. start-up and memory of a server on the embedded store with no data files: time to the
#    first /health and to /ready; RSS at the first /health (the embedded tables are still being
#    built), once the warm-up has finished (idle), and after one call of every operation
#    (bench/every_op.py);
# 3. the pipeline: POST /v1/uuid/v4 as a key holder, against a bare hyper server and a bare
#    poem handler doing the same (examples/), wrench logging at warn and at the default info
#    (one access line per request, written to a file); wrk alternating, two rounds, the better
#    round of each counts;
# 4. the stateful paths (bench/storage.sh): receive and redirect against redis-benchmark;
# 5. duplicated dependency versions (`cargo tree -d`), and what each embedded table costs to
#    build (`wrench tables`, in a process of its own);
# 6. with WRENCH_BENCH_COLD_BUILD=1 only, a cold `cargo build --release` in a fresh target
#    directory (15 minutes or so on 2 cores); otherwise the row says it was not measured.
set -euo pipefail
# A missing tool would print zeros as figures: stop instead.
for tool in wrk redis-benchmark curl python3; do
  command -v "$tool" >/dev/null || { echo "$0: $tool is not installed (Debian: apt-get install wrk redis-tools curl)" >&2; exit 2; }
done
cd "$(dirname "$0")/.."
DURATION="${1:-10}"
CONNECTIONS="${2:-32}"
REDIS_URL="${3:-redis://127.0.0.1:6379/15}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}"
cargo build --release --quiet --bin wrench --example bare_handler --example bare_hyper
REL="$CARGO_TARGET_DIR/release"
BIN="${WRENCH_BENCH_BIN:-$REL/wrench}"
WORK=$(mktemp -d)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT
ms_now() { date +%s%N | awk '{printf "%d", $1 / 1000000}'; }
# Resident memory in MB: all of it, and in brackets the part that is not file pages of the
# binary (the heap, stacks: what the process cannot give back without freeing it).
rss_mb() { awk '/^VmRSS/ {t = $2} /^RssAnon/ {a = $2} END {printf "%.1f (anon %.1f)", t * 1.024 / 1000, a * 1.024 / 1000}' "/proc/$1/status"; }
wait_ok() { # url [max-seconds] -> waits for a 200
  local deadline=$(( $(date +%s) + ${2:-10} ))
  until curl -fs -o /dev/null "$1"; do
    [ "$(date +%s)" -ge "$deadline" ] && { echo "no answer from $1" >&2; return 1; }
    sleep 0.005
  done
}

# 1. Size.
SIZE_MB=$(stat -c %s "$BIN" | awk '{printf "%.1f", $1 / 1000000}')

# 2. Start-up and memory.
START=$(ms_now)
WRENCH_RATE_ANON_PER_MINUTE=0 WRENCH_RATE_ANON_PER_DAY=0 WRENCH_LISTEN=127.0.0.1:18190 WRENCH_DATA_DIR="$WORK/fresh" \
  WRENCH_LOG=warn "$BIN" serve >"$WORK/fresh.log" 2>&1 &
F=$!; PIDS+=($F)
wait_ok http://127.0.0.1:18190/health
HEALTH_MS=$(( $(ms_now) - START ))
RSS_START=$(rss_mb $F)
wait_ok http://127.0.0.1:18190/ready
READY_MS=$(( $(ms_now) - START ))
WARMED=no
for _ in $(seq 600); do # the warm-up, at most a minute
  curl -fsS http://127.0.0.1:18190/health | python3 -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)["data"]["startup"]["finished"] else 1)' 2>/dev/null && { WARMED=yes; break; }
  sleep 0.1
done
[ "$WARMED" = yes ] || { echo "the warm-up did not finish within a minute (or /health no longer reports it)" >&2; exit 1; }
sleep 1
RSS_IDLE=$(rss_mb $F)
EVERY=$(python3 bench/every_op.py http://127.0.0.1:18190)
sleep 1
RSS_ALL=$(rss_mb $F)
kill $F; wait $F 2>/dev/null || true

# 3. The pipeline.
KEYS=$("$BIN" keys new)
export WRENCH_BENCH_KEY=$(printf '%s\n' "$KEYS" | awk '/^key:/ {print $2}')
DIGEST=$(printf '%s\n' "$KEYS" | awk '/^digest:/ {print $2}')
"$REL/examples/bare_hyper" 127.0.0.1:18191 >"$WORK/hyper.log" 2>&1 & PIDS+=($!)
"$REL/examples/bare_handler" 127.0.0.1:18192 >"$WORK/poem.log" 2>&1 & PIDS+=($!)
WRENCH_API_KEYS="$DIGEST" WRENCH_DATA_DIR="$WORK/warn" WRENCH_LISTEN=127.0.0.1:18193 WRENCH_LOG=warn \
  "$BIN" serve >"$WORK/warn.log" 2>&1 & PIDS+=($!)
WRENCH_API_KEYS="$DIGEST" WRENCH_DATA_DIR="$WORK/info" WRENCH_LISTEN=127.0.0.1:18194 WRENCH_LOG=info \
  "$BIN" serve >"$WORK/info.log" 2>&1 & PIDS+=($!)
for port in 18191 18192 18193 18194; do
  for _ in $(seq 200); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.05; done
  curl -fsS -X POST -H 'Content-Type: application/json' -H "X-API-Key: $WRENCH_BENCH_KEY" -d '{}' \
    "http://127.0.0.1:$port/v1/uuid/v4" >/dev/null
done
wrk_rps() { # name port -> req/s
  wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" -s bench/uuid.lua "http://127.0.0.1:$2/v1/uuid/v4" >"$WORK/$1.txt"
  if grep -q "Non-2xx" "$WORK/$1.txt"; then cat "$WORK/$1.txt" >&2; exit 1; fi
  awk '/^Requests\/sec/ {print $2}' "$WORK/$1.txt"
}
declare -A BEST=([hyper]=0 [poem]=0 [warn]=0 [info]=0)
for round in 1 2; do
  for s in hyper:18191 poem:18192 warn:18193 info:18194; do
    r=$(wrk_rps "${s%%:*}-$round" "${s##*:}")
    BEST[${s%%:*}]=$(awk -v a="$r" -v b="${BEST[${s%%:*}]}" 'BEGIN {print (a > b) ? a : b}')
  done
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", a / b}'; }

# 4. The stateful paths.
STORAGE=$(WRENCH_BENCH_BIN="$BIN" bench/storage.sh "$DURATION" "$CONNECTIONS" "$REDIS_URL")
row() { printf '%s\n' "$STORAGE" | awk -v k="$1" '$1 == "wrench" && $2 == k {print $3, $5}'; }
read -r RR RRR <<<"$(row redis-receive)"
read -r RD RDR <<<"$(row redis-redirect)"
read -r ER ERR <<<"$(row embedded-receive)"
read -r ED EDR <<<"$(row embedded-redirect)"

# 5. Duplicated dependency versions: packages of the build graph present in more than one
# version (`cargo tree -d` also lists a package built twice in one version, for the build
# machine and for the target with other features; those are not counted).
DUPES=$(cargo tree -d --depth 0 --prefix none --edges normal,build 2>/dev/null | awk 'NF {print $1, $2}' | sort -u \
  | awk '{n[$1]++} END {c = 0; for (k in n) if (n[k] > 1) c++; print c}')

TABLES=$("$BIN" tables 2>/dev/null || echo "(this build has no \`wrench tables\`)")

# 6. Cold build.
if [ "${WRENCH_BENCH_COLD_BUILD:-0}" = 1 ]; then
  COLD_DIR=$(mktemp -d)
  T0=$(date +%s)
  CARGO_TARGET_DIR="$COLD_DIR" cargo build --release --quiet --bin wrench
  COLD="$(( ($(date +%s) - T0) / 60 )) min $(( ($(date +%s) - T0) % 60 )) s"
  rm -rf "$COLD_DIR"
else
  COLD="not measured (WRENCH_BENCH_COLD_BUILD=1)"
fi

echo "machine: $(nproc) cores; wrk -t2 -c$CONNECTIONS -d${DURATION}s"
printf '%-64s %s\n' "figure" "value"
printf '%-64s %s\n' "uuid/v4 req/s: bare hyper / bare poem / wrench warn / wrench info" \
  "${BEST[hyper]} / ${BEST[poem]} / ${BEST[warn]} / ${BEST[info]}"
printf '%-64s %s\n' "wrench (warn) / bare poem" "$(ratio "${BEST[warn]}" "${BEST[poem]}")"
printf '%-64s %s\n' "wrench (warn) / bare hyper" "$(ratio "${BEST[warn]}" "${BEST[hyper]}")"
printf '%-64s %s\n' "bare poem / bare hyper" "$(ratio "${BEST[poem]}" "${BEST[hyper]}")"
printf '%-64s %s\n' "wrench at info / wrench at warn" "$(ratio "${BEST[info]}" "${BEST[warn]}")"
printf '%-64s %s\n' "receive, Redis: req/s, ratio to LPUSH" "$RR, $RRR"
printf '%-64s %s\n' "redirect, Redis: req/s, ratio to INCR" "$RD, $RDR"
printf '%-64s %s\n' "receive, embedded: req/s, ratio to LPUSH" "$ER, $ERR"
printf '%-64s %s\n' "redirect, embedded: req/s, ratio to INCR" "$ED, $EDR"
printf '%-64s %s\n' "RSS at the first /health (tables being built), MB" "$RSS_START"
printf '%-64s %s\n' "RSS idle, tables built, no data files, MB" "$RSS_IDLE"
printf '%-64s %s\n' "RSS after one call of every operation, MB" "$RSS_ALL ($EVERY)"
printf '%-64s %s\n' "first /health; /ready after exec, ms" "$HEALTH_MS; $READY_MS"
printf '%-64s %s\n' "release binary, MB" "$SIZE_MB"
printf '%-64s %s\n' "cold cargo build --release" "$COLD"
printf '%-64s %s\n' "packages in more than one version (cargo tree -d)" "$DUPES"
echo
echo "wrench tables (each embedded table built in turn, one process):"
printf '%s\n' "$TABLES"
echo
echo "bench/storage.sh, in full:"
printf '%s\n' "$STORAGE"
