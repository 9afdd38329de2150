#!/usr/bin/env python3
"""A long soak of mixed requests against one wrench server, sampling its memory and its store.

    bench/soak.py --bin PATH --store embedded|redis [--redis-url URL] [--seconds 600] [--clients 8]

Starts the server (anonymous limits off, logging at warn) on a free port, with the embedded
store in a fresh directory or with Redis under a key prefix of its own (removed afterwards),
and runs `--clients` clients, each on one keep-alive connection, for `--seconds`. Each client
loops over a mix that writes as a busy instance does, with data that expires so that live data
stops growing once the first minutes have passed:

- stateless calls: Base64, SHA-256 of 1 KiB, a UUID, JSON formatting of 8 KiB;
- a paste of 2-16 KiB living 60 s, read back as JSON and raw;
- a webhook inbox living 60 s, taking deliveries of 1-4 KiB and listed now and then (a new
  inbox replaces it every 200 deliveries);
- a short link created, followed five times, its statistics read, then deleted.

Every 5 s it records the server's resident memory (VmRSS), and the store's size: the embedded
store's file (its length, and the disk it takes) or Redis's `used_memory`. At the end it prints
the samples as a table, then one line of figures: RSS at start, at half time and at the end,
the largest, its growth over the second half, and the store's size at the same points, with
the requests made and the answers that were not 2xx or 3xx (counted by status).
"""
import argparse
import http.client
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

parser = argparse.ArgumentParser()
parser.add_argument("--bin", required=True)
parser.add_argument("--store", choices=["embedded", "redis"], required=True)
parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/15")
parser.add_argument("--seconds", type=int, default=600)
parser.add_argument("--clients", type=int, default=8)
parser.add_argument("--settings", default="", help="extra settings, NAME=VALUE,NAME=VALUE")
args = parser.parse_args()

work = tempfile.mkdtemp(prefix="wrench-soak-")
with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
prefix = f"wrench-soak-{os.getpid()}:"
env = dict(os.environ)
env.update(
    WRENCH_LISTEN=f"127.0.0.1:{port}",
    WRENCH_LOG="warn",
    WRENCH_RATE_ANON_PER_MINUTE="0",
    WRENCH_RATE_ANON_PER_DAY="0",
    WRENCH_INBOX_RATE_PER_MINUTE="0",
)
if args.store == "embedded":
    env["WRENCH_DATA_DIR"] = os.path.join(work, "data")
else:
    env.update(WRENCH_REDIS_URL=args.redis_url, WRENCH_REDIS_PREFIX=prefix)
for pair in filter(None, args.settings.split(",")):
    name, value = pair.split("=", 1)
    env[name] = value
server = subprocess.Popen([args.bin, "serve"], env=env, stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, "log"), "w"))


def answers():
    try:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
        c.request("GET", "/health")
        return c.getresponse().status == 200
    except OSError:
        return False


deadline = time.time() + 30
while not answers():
    if time.time() > deadline or server.poll() is not None:
        sys.exit(f"the server did not start: {open(os.path.join(work, 'log')).read()}")
    time.sleep(0.05)

redis = urllib.parse.urlparse(args.redis_url)


def redis_used():
    out = subprocess.run(
        ["redis-cli", "-h", redis.hostname or "127.0.0.1", "-p", str(redis.port or 6379), "info", "memory"],
        capture_output=True, text=True,
    ).stdout
    return next((int(l.split(":")[1]) for l in out.splitlines() if l.startswith("used_memory:")), 0)


def rss_mib():
    with open(f"/proc/{server.pid}/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith("VmRSS")) / 1024


def store_mib():
    """(length, disk) of the embedded store's file in MiB, or Redis's used memory twice."""
    if args.store == "redis":
        used = redis_used() / 2**20
        return used, used
    path = os.path.join(work, "data", "wrench.redb")
    st = os.stat(path)
    return st.st_size / 2**20, st.st_blocks * 512 / 2**20


statuses = {}
requests = [0]
lock = threading.Lock()
stop = threading.Event()


def client(n):
    rnd = random.Random(n)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def call(method, path, body=None, headers=None):
        data = json.dumps(body).encode() if body is not None else None
        h = {"Content-Type": "application/json"} if data is not None else {}
        h.update(headers or {})
        for attempt in range(2):
            try:
                conn.request(method, path, body=data, headers=h)
                r = conn.getresponse()
                payload = r.read()
                break
            except (OSError, http.client.HTTPException):
                conn.close()
                if attempt:
                    with lock:
                        statuses["connection"] = statuses.get("connection", 0) + 1
                    return 0, None
        with lock:
            requests[0] += 1
            if r.status >= 400:
                statuses[r.status] = statuses.get(r.status, 0) + 1
        try:
            return r.status, json.loads(payload)
        except ValueError:
            return r.status, None

    inbox, delivered = None, 0
    doc = {"items": [{"id": i, "name": f"item {i}", "tags": ["a", "b"], "score": i * 1.5} for i in range(120)]}
    while not stop.is_set():
        kind = rnd.random()
        if kind < 0.35:
            call("POST", "/v1/base64/encode", {"text": "soak " * rnd.randint(1, 200)})
            call("POST", "/v1/hash", {"text": "x" * 1024, "algorithm": "sha256"})
            call("POST", "/v1/uuid/v4")
            call("POST", "/v1/json/format", {"json": json.dumps(doc), "indent": 2})
        elif kind < 0.6:
            content = "".join(rnd.choice("abcdefghij \n") for _ in range(rnd.randint(2048, 16384)))
            status, v = call("POST", "/v1/paste/create", {"content": content, "ttl": 60})
            if status == 200:
                pid = v["data"]["id"]
                call("GET", f"/v1/paste/{pid}")
                call("GET", f"/v1/paste/{pid}/raw")
        elif kind < 0.85:
            if inbox is None or delivered >= 200:
                status, v = call("POST", "/v1/webhook/inbox/create", {"ttlSeconds": 60, "maxPayloads": 100})
                inbox, delivered = (v["data"]["id"] if status == 200 else None), 0
            if inbox:
                for _ in range(5):
                    body = {"event": "soak", "data": "y" * rnd.randint(1024, 4096)}
                    status, _ = call("POST", f"/v1/webhook/inbox/{inbox}/receive", body)
                    delivered += 1
                    if status == 404:
                        inbox = None
                        break
                if inbox and rnd.random() < 0.2:
                    call("GET", f"/v1/webhook/inbox/{inbox}/payloads?limit=20")
        else:
            status, v = call("POST", "/v1/short-url/create", {"url": f"https://example.com/{rnd.random()}"})
            if status == 200:
                slug, token = v["data"]["slug"], v["data"]["manageToken"]
                for _ in range(5):
                    call("GET", f"/v1/short-url/r/{slug}")
                call("GET", f"/v1/short-url/{slug}/stats")
                call("DELETE", f"/v1/short-url/{slug}", headers={"X-Manage-Token": token})


threads = [threading.Thread(target=client, args=(n,), daemon=True) for n in range(args.clients)]
started = time.time()
samples = [(0, rss_mib(), *store_mib())]
for t in threads:
    t.start()
try:
    while time.time() - started < args.seconds:
        time.sleep(5)
        samples.append((round(time.time() - started), rss_mib(), *store_mib()))
        if server.poll() is not None:
            sys.exit(f"the server stopped: {open(os.path.join(work, 'log')).read()[-2000:]}")
finally:
    stop.set()
    for t in threads:
        t.join(timeout=40)
    server.terminate()
    server.wait(timeout=30)
    if args.store == "redis":
        host, rport = redis.hostname or "127.0.0.1", str(redis.port or 6379)
        keys = subprocess.run(["redis-cli", "-h", host, "-p", rport, "--scan", "--pattern", prefix + "*"],
                              capture_output=True, text=True).stdout.split()
        for i in range(0, len(keys), 500):
            subprocess.run(["redis-cli", "-h", host, "-p", rport, "del", *keys[i:i + 500]], capture_output=True)
    log = open(os.path.join(work, "log")).read()
    shutil.rmtree(work, ignore_errors=True)

print(f"# {args.store}: {args.clients} clients, {args.seconds} s")
print("#   s   RSS MiB   store MiB (length)   store MiB (disk or used)")
for s, rss, length, disk in samples:
    print(f"{s:5d} {rss:9.1f} {length:20.1f} {disk:24.1f}")
half = min(samples, key=lambda x: abs(x[0] - args.seconds / 2))
end = samples[-1]
growth = 100 * (end[1] - half[1]) / half[1]
failed = ", ".join(f"{k}: {v}" for k, v in sorted(statuses.items(), key=str)) or "none"
print(
    f"{args.store}: RSS {samples[0][1]:.1f} -> {half[1]:.1f} (at {half[0]} s) -> {end[1]:.1f} MiB, "
    f"largest {max(x[1] for x in samples):.1f}, second half {growth:+.1f} %; store {samples[0][3]:.1f} -> "
    f"{half[3]:.1f} -> {end[3]:.1f} MiB (largest {max(x[3] for x in samples):.1f}); "
    f"{requests[0]} requests ({requests[0] / args.seconds:.0f}/s), answers of 4xx/5xx or failures: {failed}"
)
if "panicked" in log:
    print("the server's log names a panic", file=sys.stderr)
    sys.exit(1)
