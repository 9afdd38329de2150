"""Large JSON answers, plain and gzipped: what the encoding costs the server, and what it saves
on the wire.

    python3 bench/answer_encoding.py [rounds]      (needs a release build)

A release server with its default limits. One keep-alive connection asks, in turn, for each
answer below without and with `Accept-Encoding: gzip`:

- the catalog, `GET /v1/operations` (about 1 MB of JSON: schemas, descriptions, examples);
- `POST /v1/base64/encode` of 600 KB of random words and numbers (an answer of about 800 KB that
  is mostly Base64, which compresses far less than prose).

Each is asked 50 times a round; the best of `rounds` (5) rounds is reported as the time a
client sees per answer, read to the end (and, gzipped, decompressed by Python's zlib), with the
bytes that travelled. The ratio is gzipped against plain over loopback, where bytes cost almost
nothing; the last two columns add the time those bytes take at 100 Mbit/s (a modest link) and
at 1 Gbit/s (a fast local network).
"""

import http.client
import json
import random
import sys
import tempfile
import time
import zlib

from harness import server

PORT = 18096
ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 5
REPEAT = 50
LINKS = [100e6 / 8, 1e9 / 8]  # bytes per second at 100 Mbit/s and at 1 Gbit/s

# Words drawn at random (a fixed seed): text that does not repeat itself, as real input would not.
_WORDS = "answer bytes catalog decode encode field gzip header json key limit operation page query recipe schema server slug text token value wrench".split()
_PICK = random.Random(7)
TEXT = " ".join(_PICK.choice(_WORDS) + str(_PICK.randrange(1000)) for _ in range(80_000))[:600_000]
CASES = [
    ("catalog (GET /v1/operations)", "GET", "/v1/operations", None),
    ("base64/encode of 600 KB", "POST", "/v1/base64/encode", json.dumps({"text": TEXT}).encode()),
]


def ask(conn, method, path, body, gzip):
    headers = {"Content-Type": "application/json"} if body else {}
    if gzip:
        headers["Accept-Encoding"] = "gzip"
    conn.request(method, path, body, headers)
    resp = conn.getresponse()
    data = resp.read()
    if resp.status != 200:
        raise SystemExit(f"{path}: {resp.status} {data[:300]!r}")
    sent = len(data)
    if resp.getheader("Content-Encoding") == "gzip":
        data = zlib.decompress(data, 16 + zlib.MAX_WBITS)
    elif gzip:
        raise SystemExit(f"{path}: not gzipped")
    json.loads(data)
    return sent


def main():
    with tempfile.TemporaryDirectory() as data, server(PORT, data, large=False):
        conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=60)
        rows = []
        for name, method, path, body in CASES:
            result = {}
            for gzip in (False, True):
                best = None
                for _ in range(ROUNDS):
                    start = time.perf_counter()
                    for _ in range(REPEAT):
                        sent = ask(conn, method, path, body, gzip)
                    took = (time.perf_counter() - start) / REPEAT
                    best = took if best is None else min(best, took)
                result[gzip] = (best, sent)
            rows.append((name, result))
        print("| Answer | Plain: ms, bytes | Gzipped: ms, bytes | Gzipped / plain: loopback | at 100 Mbit/s | at 1 Gbit/s |")
        print("|---|---:|---:|---:|---:|---:|")
        for name, r in rows:
            (tp, bp), (tg, bg) = r[False], r[True]
            wire = [(tg + bg / link) / (tp + bp / link) for link in LINKS]
            print(f"| {name} | {tp * 1e3:.2f}, {bp:,} | {tg * 1e3:.2f}, {bg:,} | {tg / tp:.2f} | {wire[0]:.2f} | {wire[1]:.2f} |")


if __name__ == "__main__":
    main()
