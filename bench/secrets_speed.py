"""Speed of the secrets operations against reference implementations, in one run.

    python3 bench/secrets_speed.py [rounds]
        (needs a release build, sha256sum and openssl, and a Python with PyPI blake3 and
        cryptography: run it with that Python)

Part 1, 8 MiB through SHA-256, BLAKE3 and AES-256-GCM. A release server runs with a body limit
of 24 MiB; each wrench case is timed as a client sees it (the bytes sent as Base64 in JSON,
parsed, decoded, the work, the answer read back) and also by the server's own `meta.duration`
(decoding and work, without the transfer). The references: `sha256sum` reading the file (a
process of its own), PyPI blake3 (the reference Rust crate's C and SIMD code) and PyPI
cryptography's AESGCM (OpenSSL), each timed around the work alone, in a process of its own.
Best of `rounds` (3). The goal: wrench's time within 1.5 times the reference's.

Part 2, key generation: medians and 99th percentiles of `keys/generate` for RSA-2048 (40
calls) and Ed25519 (400 calls) as a client sees them, beside `openssl genpkey` (a process per
key) in the same run.
"""

import base64
import http.client
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from harness import server

PORT = 18093
ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 3
KEY = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
IV = "000102030405060708090a0b"


def post(path, body):
    conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=300)
    conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
    resp = conn.getresponse()
    data = resp.read()
    conn.close()
    if resp.status != 200:
        raise SystemExit(f"{path}: {resp.status} {data[:300]!r}")
    return json.loads(data)


def best(fn):
    times = []
    for _ in range(ROUNDS):
        times.append(fn())
    return min(times)


def timed_request(path, body):
    def go():
        start = time.perf_counter()
        answer = post(path, body)
        return time.perf_counter() - start, answer["meta"]["duration"] / 1000
    return go


def reference(code, path):
    """Runs `code` in a Python of its own with `data` read from `path`; it prints seconds."""
    def go():
        out = subprocess.run([sys.executable, "-c", "import sys, time\ndata = open(sys.argv[1], 'rb').read()\n" + code, path],
                             capture_output=True, text=True, check=True).stdout
        return float(out)
    return go


def process(args):
    def go():
        start = time.perf_counter()
        subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        return time.perf_counter() - start
    return go


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def main():
    for needed in ("sha256sum", "openssl"):
        if shutil.which(needed) is None:
            raise SystemExit(f"{needed} is not installed")
    work = tempfile.mkdtemp()
    data = random.Random(8).randbytes(8 << 20)
    raw = os.path.join(work, "input")
    with open(raw, "wb") as f:
        f.write(data)
    b64 = base64.b64encode(data).decode()
    with server(PORT, os.path.join(work, "data")):
        cases = [
            ("SHA-256", timed_request("/v1/hash", {"text": b64, "inputEncoding": "base64", "algorithm": "sha256"}),
             process(["sha256sum", raw]), "sha256sum"),
            ("BLAKE3", timed_request("/v1/hash", {"text": b64, "inputEncoding": "base64", "algorithm": "blake3"}),
             reference("import blake3\nt = time.perf_counter(); blake3.blake3(data).digest(); print(time.perf_counter() - t)", raw),
             "PyPI blake3"),
            ("AES-256-GCM", timed_request("/v1/cipher/encrypt", {"input": b64, "inputEncoding": "base64", "algorithm": "aes-256",
                                                                 "mode": "gcm", "key": KEY, "keyEncoding": "hex", "iv": IV, "ivEncoding": "hex"}),
             reference("from cryptography.hazmat.primitives.ciphers.aead import AESGCM\n"
                       f"k = AESGCM(bytes.fromhex('{KEY}'))\nt = time.perf_counter(); k.encrypt(bytes.fromhex('{IV}'), data, None); print(time.perf_counter() - t)", raw),
             "cryptography AESGCM"),
        ]
        # What the request costs without the work: reading 8 MiB of Base64 out of the JSON
        # (a checksum that is one XOR a byte), and that plus writing 8 MiB back as Base64 (the
        # shape of an encryption's answer). The work is the server's time less these.
        baselines = {}
        for key, path, body in [("in", "/v1/checksum", {"text": b64, "inputEncoding": "base64", "algorithm": "xor8"}),
                                ("in+out", "/v1/base64/encode", {"text": b64, "inputEncoding": "base64"})]:
            go = timed_request(path, body)
            go()
            baselines[key] = min(go()[1] for _ in range(ROUNDS))
        print(f"input: {len(data):,} bytes; best of {ROUNDS}; {os.cpu_count()} cores; the request alone: "
              f"{baselines['in'] * 1000:.1f} ms reading the bytes, {baselines['in+out'] * 1000:.1f} ms reading and writing them")
        print(f"{'case':<12} {'wrench ms':>10} {'server ms':>10} {'work ms':>8} {'ref ms':>8} {'ratio':>6} {'work ratio':>11}  reference")
        for name, ours, theirs, label in cases:
            ours()
            runs = [ours() for _ in range(ROUNDS)]
            client = min(r[0] for r in runs)
            server_side = min(r[1] for r in runs)
            work = server_side - baselines["in+out" if name.startswith("AES") else "in"]
            ref = best(theirs)
            print(f"{name:<12} {client * 1000:>10.1f} {server_side * 1000:>10.1f} {work * 1000:>8.1f} {ref * 1000:>8.1f} "
                  f"{client / ref:>6.2f} {work / ref:>11.2f}  {label}")

        print()
        print(f"{'key generation':<16} {'calls':>6} {'p50 ms':>8} {'p99 ms':>8} {'openssl p50':>12} {'openssl p99':>12}")
        for name, body, calls, args in [
            ("RSA-2048", {"type": "rsa", "bits": 2048}, 40, ["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"]),
            ("Ed25519", {"type": "ed25519"}, 400, ["openssl", "genpkey", "-algorithm", "ED25519"]),
        ]:
            ours = []
            for _ in range(calls):
                start = time.perf_counter()
                post("/v1/keys/generate", body)
                ours.append((time.perf_counter() - start) * 1000)
            theirs = [process(args)() * 1000 for _ in range(min(calls, 100))]
            print(f"{name:<16} {calls:>6} {statistics.median(ours):>8.1f} {percentile(ours, 99):>8.1f} "
                  f"{statistics.median(theirs):>12.1f} {percentile(theirs, 99):>12.1f}")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
