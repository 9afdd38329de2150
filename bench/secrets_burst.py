#!/usr/bin/env python3
"""Does a burst of expensive secrets work starve cheap requests?

Measures the latency of `POST /v1/uuid/v4` on one keep-alive connection, first alone and then
while `workers` clients keep sending the most expensive requests the secrets operations admit
(Argon2id at the caps: 64 MiB, 10 passes, 4 lanes; bcrypt cost 15; scrypt 2^17 at 128 MiB;
4096-bit RSA key generation), and
reports p50, p99 and the slowest call of each phase, with their ratios to the calm phase, in
the same run.

    python3 bench/secrets_burst.py BASE_URL [API_KEY] [--workers 8] [--calls 2000] [--only rsa4096]

Run it against a release build started with the rate limits off (WRENCH_RATE_ANON_PER_MINUTE=0
WRENCH_RATE_ANON_PER_DAY=0) or with a key. Standard library only.
"""

import argparse
import http.client
import json
import threading
import time
import urllib.parse

HEAVY = {
    "argon2id": ("/v1/password/hash", {"password": "correct horse battery staple", "algorithm": "argon2id",
                                       "params": {"memoryKib": 65536, "iterations": 10, "parallelism": 4}}),
    "bcrypt": ("/v1/password/hash", {"password": "correct horse battery staple", "algorithm": "bcrypt",
                                     "params": {"cost": 15}}),
    "scrypt": ("/v1/password/hash", {"password": "correct horse battery staple", "algorithm": "scrypt",
                                     "params": {"logN": 17, "blockSize": 8}}),
    "rsa4096": ("/v1/keys/generate", {"type": "rsa", "bits": 4096}),
}


def connect(base):
    u = urllib.parse.urlparse(base)
    return http.client.HTTPConnection(u.hostname, u.port or 80, timeout=120)


def post(conn, path, body, key):
    headers = {"Content-Type": "application/json"}
    if key:
        headers["X-API-Key"] = key
    conn.request("POST", path, json.dumps(body), headers)
    response = conn.getresponse()
    data = response.read()
    return response.status, data


def latencies(base, key, calls):
    conn = connect(base)
    out = []
    for _ in range(calls):
        t = time.perf_counter()
        status, _ = post(conn, "/v1/uuid/v4", {}, key)
        out.append((time.perf_counter() - t) * 1000)
        assert status == 200, status
    conn.close()
    return sorted(out)


def summary(values):
    pick = lambda q: values[min(len(values) - 1, int(q * len(values)))]
    return {"p50": round(pick(0.50), 3), "p99": round(pick(0.99), 3), "max": round(values[-1], 3)}


def burst(base, key, name, workers, calls):
    path, body = HEAVY[name]
    stop = threading.Event()
    done = []

    def hammer():
        conn = connect(base)
        while not stop.is_set():
            t = time.perf_counter()
            status, data = post(conn, path, body, key)
            assert status == 200, (status, data[:200])
            done.append(time.perf_counter() - t)
        conn.close()

    threads = [threading.Thread(target=hammer) for _ in range(workers)]
    for th in threads:
        th.start()
    time.sleep(1.0)  # let the pool fill
    cheap = latencies(base, key, calls)
    stop.set()
    for th in threads:
        th.join()
    heavy = sorted(done)
    return cheap, {"count": len(heavy), "median_s": round(heavy[len(heavy) // 2], 3) if heavy else None}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("base")
    parser.add_argument("key", nargs="?")
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--only", choices=list(HEAVY), help="run the calm phase and this kind only")
    args = parser.parse_args()
    latencies(args.base, args.key, 200)  # warm up
    calm = summary(latencies(args.base, args.key, args.calls))
    print(json.dumps({"phase": "calm", "uuid/v4 ms": calm}))
    for name in [args.only] if args.only else HEAVY:
        cheap, heavy = burst(args.base, args.key, name, args.workers, args.calls)
        s = summary(cheap)
        ratios = {k: round(s[k] / calm[k], 2) for k in ("p50", "p99")}
        print(json.dumps({"phase": f"{args.workers} clients of {name} at the caps", "uuid/v4 ms": s,
                          "ratio to calm": ratios, "heavy calls": heavy}))


main()
