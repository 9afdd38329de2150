"""What the Python benches share: the release binary, a server started on it with limits large
enough for their documents, requests timed as a client sees them, reference commands timed on
a file, and the best of several rounds.
"""

import contextlib
import http.client
import json
import os
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
BIN = os.environ.get("WRENCH_BENCH_BIN", os.path.join(TARGET, "release", "wrench"))


def best(fn, rounds):
    """The shortest of `rounds` runs of `fn`, in seconds."""
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def tool(args, path):
    """A command reading `path` on its standard input and writing to /dev/null."""
    def go():
        with open(path, "rb") as src, open(os.devnull, "wb") as dst:
            subprocess.run(args, stdin=src, stdout=dst, check=True)
    return go


def request(port, path, body):
    """A POST of `body` as JSON that must answer 200, its answer read to the end."""
    payload = json.dumps(body).encode()

    def go():
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
        conn.request("POST", path, payload, {"Content-Type": "application/json"})
        resp = conn.getresponse()
        data = resp.read()
        conn.close()
        if resp.status != 200:
            raise SystemExit(f"{path}: {resp.status} {data[:300]!r}")
    return go


@contextlib.contextmanager
def server(port, data, large=True):
    """The release server on `port`, its data under `data`, no anonymous rate limit, and with
    `large` a 24 MiB body limit and a 160 MiB answer limit (else the defaults); stopped on exit."""
    if not os.path.exists(BIN):
        raise SystemExit(f"no release binary at {BIN}: cargo build --release --bin wrench")
    env = dict(os.environ, WRENCH_LISTEN=f"127.0.0.1:{port}", WRENCH_DATA_DIR=data,
               WRENCH_LOG="warn", WRENCH_RATE_ANON_PER_MINUTE="0", WRENCH_RATE_ANON_PER_DAY="0")
    if large:
        env.update(WRENCH_BODY_LIMIT="24MiB", WRENCH_RESPONSE_LIMIT="160MiB")
    proc = subprocess.Popen([BIN, "serve"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                http.client.HTTPConnection("127.0.0.1", port, timeout=1).request("GET", "/health")
                break
            except OSError:
                time.sleep(0.1)
        yield proc
    finally:
        proc.terminate()
        proc.wait()
