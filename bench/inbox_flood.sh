#!/usr/bin/env bash
# What a full inbox costs each delivery: 120 deliveries of 1,000,000 bytes into one inbox (it
# keeps 50), sent one after another, on the embedded store and on Redis. Prints the total time,
# the slowest of the last ten deliveries and the server's peak resident memory for each store,
# so that two builds can be compared with the same procedure (WRENCH_BENCH_BIN=an earlier
# build's binary). Needs curl, python3 and a Redis to use.
#
#   bench/inbox_flood.sh [redis-url]
set -euo pipefail
cd "$(dirname "$0")/.."
REDIS_URL="${1:-redis://127.0.0.1:6379/15}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}"
if [ -z "${WRENCH_BENCH_BIN:-}" ]; then
  cargo build --release --quiet --bin wrench
fi
BIN="${WRENCH_BENCH_BIN:-$CARGO_TARGET_DIR/release/wrench}"
WORK=$(mktemp -d)
PREFIX="wrench-bench-$$:"
head -c 1000000 /dev/urandom >"$WORK/body"
# A body of 1,000,000 bytes under a 2 MiB limit; answers of 50 such payloads are paged.
export WRENCH_BODY_LIMIT=2MiB WRENCH_RESPONSE_LIMIT=16MiB WRENCH_RATE_ANON_PER_MINUTE=0 WRENCH_RATE_ANON_PER_DAY=0 \
  WRENCH_INBOX_RATE_PER_MINUTE=0 WRENCH_LOG=warn
SERVER=""
cleanup() {
  [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null || true
  python3 - "$REDIS_URL" "$PREFIX" <<'EOF' || true
import socket, sys, urllib.parse
u = urllib.parse.urlparse(sys.argv[1])
s = socket.create_connection((u.hostname or "127.0.0.1", u.port or 6379))
db = (u.path or "/0").lstrip("/") or "0"
def cmd(*parts):
    s.sendall(b"".join([b"*%d\r\n" % len(parts)] + [b"$%d\r\n%s\r\n" % (len(p), p) for p in parts]))
cmd(b"SELECT", db.encode())
cmd(b"EVAL", b"for _,k in ipairs(redis.call('KEYS', ARGV[1])) do redis.call('DEL', k) end return 0", b"0", sys.argv[2].encode() + b"*")
s.recv(65536)
EOF
  rm -rf "$WORK"
}
trap cleanup EXIT

run() { # label, then the store's settings
  local label="$1"
  shift
  env "$@" WRENCH_LISTEN=127.0.0.1:18191 "$BIN" serve >"$WORK/$label.log" 2>&1 &
  SERVER=$!
  for _ in $(seq 100); do curl -s -o /dev/null http://127.0.0.1:18191/health && break; sleep 0.1; done
  local id
  id=$(curl -s -X POST http://127.0.0.1:18191/v1/webhook/inbox/create | python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["id"])')
  python3 - "$id" "$WORK/body" "$SERVER" "$label" <<'EOF'
import http.client, sys, time
inbox, body, pid, label = sys.argv[1], open(sys.argv[2], "rb").read(), sys.argv[3], sys.argv[4]
conn = http.client.HTTPConnection("127.0.0.1", 18191)
times = []
started = time.monotonic()
for _ in range(120):
    t = time.monotonic()
    conn.request("POST", f"/v1/webhook/inbox/{inbox}/receive", body, {"Content-Type": "application/octet-stream"})
    r = conn.getresponse()
    r.read()
    assert r.status == 200, r.status
    times.append(time.monotonic() - t)
total = time.monotonic() - started
peak = next(l for l in open(f"/proc/{pid}/status") if l.startswith("VmHWM")).split()[1]
print(f"{label:9} 120 x 1,000,000 bytes: {total:6.2f} s total, last ten at most {max(times[-10:]) * 1000:7.1f} ms, "
      f"peak RSS {int(peak) / 1024:6.0f} MiB")
EOF
  kill "$SERVER"
  wait "$SERVER" 2>/dev/null || true
  SERVER=""
}

run embedded WRENCH_DATA_DIR="$WORK/data"
run redis WRENCH_REDIS_URL="$REDIS_URL" WRENCH_REDIS_PREFIX="$PREFIX"
