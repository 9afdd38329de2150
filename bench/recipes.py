"""A recipe of five cheap operations against the same five operations called one by one.

    python3 bench/recipes.py [rounds]      (needs a release build)

A release server with its default limits. One keep-alive connection sends, in turn:

- the five calls one by one (`textCase`, `base64Encode`, `hexEncode`, `hexDecode`,
  `base64Decode` on a short text, each taking the last one's output), each answer read and
  parsed before the next is sent, as a client chaining them would;
- one `recipes/run` of the same five steps in the pipe form;
- one `recipes/run` of the same five steps in the full form (ids and `from` pointers), with
  `trace` off;
- one single call (`base64Encode`), the unit the goal is written in.

Each is repeated 2,000 times a round, and the best of `rounds` (5) rounds is reported as the
time a client sees per chain, with the median of the server's own part of it (the answers'
`meta.duration`, summed over the chain). The goal: a five-step recipe costs less than two single calls.
"""

import http.client
import json
import statistics
import sys
import tempfile
import time

from harness import server

PORT = 18095
ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 5
REPEAT = 2000
TEXT = "Recipes chain operations in one call."

CHAIN = [
    ("/v1/text/case", "text", "converted", {"to": "upper"}),
    ("/v1/base64/encode", "text", "encoded", {}),
    ("/v1/hex/encode", "text", "encoded", {}),
    ("/v1/hex/decode", "encoded", "decoded", {}),
    ("/v1/base64/decode", "encoded", "decoded", {}),
]
PIPE = {"input": TEXT, "steps": [{"op": "textCase", "args": {"to": "upper"}}, "base64Encode", "hexEncode",
                                  "hexDecode", "base64Decode"]}
FULL = {"input": {"text": TEXT}, "steps": [
    {"id": "a", "op": "textCase", "args": {"to": "upper"}, "from": {"text": "/input/text"}},
    {"id": "b", "op": "base64Encode", "from": {"text": "/steps/a/converted"}},
    {"id": "c", "op": "hexEncode", "from": {"text": "/steps/b/encoded"}},
    {"id": "d", "op": "hexDecode", "from": {"encoded": "/steps/c/encoded"}},
    {"id": "e", "op": "base64Decode", "from": {"encoded": "/steps/d/decoded"}},
], "result": "/steps/e/decoded"}


# The server's own time for each answer (`meta.duration`, in ms), summed over a chain.
SERVER = {"spent": 0.0}


def post(conn, path, body):
    conn.request("POST", path, json.dumps(body).encode(), {"Content-Type": "application/json"})
    resp = conn.getresponse()
    data = json.loads(resp.read())
    if resp.status != 200:
        raise SystemExit(f"{path}: {resp.status} {data}")
    SERVER["spent"] += data["meta"]["duration"]
    return data["data"]


def one_by_one(conn):
    value = TEXT
    for path, field, out, args in CHAIN:
        value = post(conn, path, dict(args, **{field: value}))[out]
    assert value == TEXT.upper(), value


def pipe(conn):
    assert post(conn, "/v1/recipes/run", PIPE)["result"]["decoded"] == TEXT.upper()


def full(conn):
    assert post(conn, "/v1/recipes/run", FULL)["result"] == TEXT.upper()


def single(conn):
    post(conn, "/v1/base64/encode", {"text": TEXT})


def timed(conn, fn):
    """The best round's time per chain, and the median of the server's own time per chain."""
    best, spent = float("inf"), []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        for _ in range(REPEAT):
            SERVER["spent"] = 0.0
            fn(conn)
            spent.append(SERVER["spent"] / 1000)
        best = min(best, (time.perf_counter() - start) / REPEAT)
    return best, statistics.median(spent)


def main():
    with tempfile.TemporaryDirectory() as data, server(PORT, data, large=False):
        conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=60)
        for fn in (one_by_one, pipe, full, single):
            fn(conn)
        rows = [(name, timed(conn, fn)) for name, fn in
                [("one call (base64/encode)", single), ("five calls one by one", one_by_one),
                 ("recipe, pipe form", pipe), ("recipe, full form", full)]]
        unit = rows[0][1][0]
        print(f"{'what':<28} {'µs per chain':>14} {'in single calls':>16} {'server µs':>10}")
        for name, (t, spent) in rows:
            print(f"{name:<28} {t * 1e6:>14.1f} {t / unit:>16.2f} {spent * 1e6:>10.1f}")


if __name__ == "__main__":
    main()
