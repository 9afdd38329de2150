#!/usr/bin/env python3
"""Latency of the operations that contact hosts, against the local fakes, with baselines
measured in the same run.

    CARGO_TARGET_DIR=... bench/outbound.py [requests-per-operation]

Builds the release binaries, starts the fakes and a wrench server pointed at them (anonymous,
no rate limit for loopback is assumed: the script sends an API key), sends each request the
given number of times one after another (one connection per request, as a client without a
pool would) and prints the median and 95th percentile of the wall time per operation. Two
baselines run the same way: wrench's `/health` (the pipeline without an operation) and a GET of
the fake page made directly by this script (the network and the fake without wrench).
"""

import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

N = int(sys.argv[1]) if len(sys.argv) > 1 else 50
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
subprocess.run(["cargo", "build", "--release", "--quiet", "--bin", "wrench", "--bin", "wrench-fakes"], cwd=ROOT, check=True)
BIN = os.path.join(TARGET, "release")

CASES = [
    ("dns/lookup", {"domain": "example.com", "type": "A"}),
    ("dns/batch", {"domain": "example.com", "types": ["A", "AAAA", "MX", "TXT", "NS"]}),
    ("ip/reverse", {"ip": "8.8.8.8"}),
    ("dns/propagation", {"domain": "example.com", "type": "A"}),
    ("dns/compare", {"domain": "example.com"}),
    ("dns-monitor/check", {"domain": "example.com", "types": ["A", "MX"]}),
    ("whois", {"domain": "site.example"}),
    ("whois", {"domain": "registered.test"}),
    ("ssl", {"domain": "secure.site.example", "port": 8443, "httpPort": 8080}),
    ("ssl-cert/expiry", {"domain": "www.site.example", "port": 8443}),
    ("headers", {"url": "http://www.site.example:8080/"}),
    ("security/grade", {"url": "https://www.site.example:8443/"}),
    ("redirect/trace", {"url": "http://www.site.example:8080/chain?n=3"}),
    ("site/performance", {"url": "https://www.site.example:8443/"}),
]


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def timed(fn):
    samples = []
    for _ in range(N):
        t = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t) * 1000)
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.95) - 1]


def main():
    work = tempfile.mkdtemp()
    fakes = subprocess.Popen([os.path.join(BIN, "wrench-fakes"), os.path.join(work, "ca.pem")], stdout=subprocess.PIPE, text=True)
    settings = {}
    for line in fakes.stdout:
        line = line.strip()
        if line == "ready":
            break
        k, v = line.split("=", 1)
        settings[k] = v
    try:
        run(work, fakes, settings)
    finally:
        fakes.kill()


def run(work, fakes, settings):
    keys = subprocess.run([os.path.join(BIN, "wrench"), "keys", "new"], capture_output=True, text=True, check=True).stdout
    key = re.search(r"^key:\s+(\S+)", keys, re.M).group(1)
    digest = re.search(r"^digest:\s+(\S+)", keys, re.M).group(1)
    port = free_port()
    env = dict(os.environ, **settings, WRENCH_LISTEN=f"127.0.0.1:{port}", WRENCH_API_KEYS=digest, WRENCH_LOG="warn",
               WRENCH_DATA_DIR=os.path.join(work, "data"))
    server = subprocess.Popen([os.path.join(BIN, "wrench"), "serve"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        base = f"http://127.0.0.1:{port}"
        for _ in range(100):
            try:
                urllib.request.urlopen(base + "/health")
                break
            except OSError:
                time.sleep(0.1)

        def call(path, body):
            req = urllib.request.Request(base + "/v1/" + path, data=json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json", "X-API-Key": key})
            with urllib.request.urlopen(req, timeout=60) as r:
                answer = json.load(r)
            assert answer["success"], answer

        print(f"{N} sequential requests each; wall time per request in ms")
        print("| request | median | p95 |\n|---|---|---|", flush=True)

        def row(label, fn):
            median, p95 = timed(fn)
            print(f"| {label} | {median:.2f} | {p95:.2f} |", flush=True)

        row("baseline: wrench /health", lambda: urllib.request.urlopen(base + "/health", timeout=30).read())
        row("baseline: GET of the fake page, direct", lambda: urllib.request.urlopen("http://127.0.0.2:8080/", timeout=30).read())
        for path, body in CASES:
            call(path, body)  # warm: caches as a running service has them
            row(f"{path} {json.dumps(body)}", lambda: call(path, body))
    finally:
        server.kill()


main()
