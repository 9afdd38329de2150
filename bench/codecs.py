"""Speed of the byte operations against the C tools on the same 8 MiB, in one run.

    python3 bench/codecs.py [rounds]     (needs a release build, gzip, zstd, brotli, base64, basenc)

A release server runs with a body limit of 24 MiB and a response limit of 160 MiB (the
defaults would refuse 8 MiB sent as Base64). Each case is timed end to end as a client sees it:
the JSON request sent over loopback, parsed, the bytes decoded, the work, the answer encoded
and read back. The C tool is timed reading the same bytes from a file and writing to /dev/null,
which is the least it can do. Both take the best of `rounds` (3) runs, and the ratio is
wrench's time over the tool's: the goal is at most 1.5.

The input is 8 MiB of log-like lines (timestamps, levels, paths, numbers), deterministic, so
that the compressors have something typical to work on.

A second part sends the largest requests the document admits to a server at the default
limits, one at a time, and prints each answer's status, size and time.
"""

import base64
import http.client
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

from harness import best, server, tool
from harness import request as post

PORT = 18091
ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 3


def corpus(size):
    rng = random.Random(8)
    levels = ["INFO", "WARN", "DEBUG", "ERROR"]
    paths = ["/v1/hash", "/v1/compress", "/v1/short-url/r/abc", "/health", "/v1/webhook/inbox/x/receive"]
    lines, total = [], 0
    while total < size:
        line = (f"2026-11-29T{rng.randrange(24):02}:{rng.randrange(60):02}:{rng.randrange(60):02}.{rng.randrange(1000):03}Z "
                f"{rng.choice(levels)} request method=POST path={rng.choice(paths)} status={rng.choice([200, 200, 200, 400, 404])} "
                f"duration_ms={rng.random() * 40:.3f} bytes={rng.randrange(100000)} id={rng.getrandbits(64):016x}\n")
        lines.append(line)
        total += len(line)
    return "".join(lines).encode()[:size]


def request(path, body):
    return post(PORT, path, body)


def main():
    for needed in ("gzip", "zstd", "brotli", "base64", "basenc"):
        if shutil.which(needed) is None:
            raise SystemExit(f"{needed} is not installed")
    work = tempfile.mkdtemp()
    data = corpus(8 << 20)
    raw = os.path.join(work, "input")
    with open(raw, "wb") as f:
        f.write(data)
    packed = {}
    for name, args in (("gzip", ["gzip", "-c", "-6"]), ("zstd", ["zstd", "-c", "-q", "-3"]), ("brotli", ["brotli", "-c", "-q", "5"])):
        packed[name] = subprocess.run(args, input=data, capture_output=True, check=True).stdout
        with open(os.path.join(work, name), "wb") as f:
            f.write(packed[name])
    b64 = base64.b64encode(data).decode()
    with open(os.path.join(work, "b64"), "w") as f:
        f.write(b64)
    with open(os.path.join(work, "hex"), "w") as f:
        f.write(data.hex().upper())  # basenc reads upper-case digits only
    with server(PORT, os.path.join(work, "data")):
        text = data.decode()
        cases = [
            ("compress gzip 6", request("/v1/compress", {"input": b64, "inputEncoding": "base64", "format": "gzip", "level": 6}), tool(["gzip", "-c", "-6"], raw)),
            ("compress zstd 3", request("/v1/compress", {"input": b64, "inputEncoding": "base64", "format": "zstd", "level": 3}), tool(["zstd", "-c", "-q", "-3"], raw)),
            ("compress brotli 5", request("/v1/compress", {"input": b64, "inputEncoding": "base64", "format": "brotli", "level": 5}), tool(["brotli", "-c", "-q", "5"], raw)),
            ("decompress gzip", request("/v1/decompress", {"input": base64.b64encode(packed["gzip"]).decode(), "outputEncoding": "base64"}), tool(["gzip", "-d", "-c"], os.path.join(work, "gzip"))),
            ("decompress zstd", request("/v1/decompress", {"input": base64.b64encode(packed["zstd"]).decode(), "outputEncoding": "base64"}), tool(["zstd", "-d", "-c", "-q"], os.path.join(work, "zstd"))),
            ("decompress brotli", request("/v1/decompress", {"input": base64.b64encode(packed["brotli"]).decode(), "format": "brotli", "outputEncoding": "base64"}), tool(["brotli", "-d", "-c"], os.path.join(work, "brotli"))),
            ("base64 encode", request("/v1/base64/encode", {"text": text}), tool(["base64", "-w0"], raw)),
            ("base64 decode", request("/v1/base64/decode", {"encoded": b64, "outputEncoding": "base64url"}), tool(["base64", "-d"], os.path.join(work, "b64"))),
            ("hex encode", request("/v1/hex/encode", {"text": text}), tool(["basenc", "--base16", "-w0"], raw)),
            ("hex decode", request("/v1/hex/decode", {"encoded": data.hex(), "outputEncoding": "base64"}), tool(["basenc", "--base16", "-d"], os.path.join(work, "hex"))),
        ]
        print(f"input: {len(data):,} bytes of log lines; best of {ROUNDS}; {os.cpu_count()} cores")
        print(f"{'case':<20} {'wrench ms':>10} {'C tool ms':>10} {'ratio':>7}")
        for name, ours, theirs in cases:
            ours()  # warm: the first request of a kind pays for page faults
            a, b = best(ours, ROUNDS), best(theirs, ROUNDS)
            print(f"{name:<20} {a * 1000:>10.1f} {b * 1000:>10.1f} {a / b:>7.2f}")
    largest(work)
    shutil.rmtree(work, ignore_errors=True)


def largest(work):
    """The largest requests the document admits, at the default limits (1 MiB of body, 8 MiB
    of answer): status, answer size and time of each, one at a time."""
    port = PORT + 1
    with server(port, os.path.join(work, "data2"), large=False):
        text = corpus(1_000_000).decode()
        rng = random.Random(9)
        noise = bytes(rng.randrange(256) for _ in range(700_000))
        import io
        import tarfile
        many = io.BytesIO()
        with tarfile.open(fileobj=many, mode="w:gz") as t:
            for i in range(12_000):
                t.addfile(tarfile.TarInfo(f"d/{i:05}.txt"), io.BytesIO(b""))
        bomb = subprocess.run(["gzip", "-c", "-9"], input=bytes(64 << 20), capture_output=True, check=True).stdout
        cases = [
            ("hex/encode, \\x and ', ' on 1 MB", "/v1/hex/encode", {"text": text, "prefix": "\\x", "delimiter": ", "}),
            ("hex/encode 1 MB", "/v1/hex/encode", {"text": text}),
            ("hexdump xxd 1 MB", "/v1/hexdump", {"text": text}),
            ("hexdump -C 700 KB of noise", "/v1/hexdump", {"text": base64.b64encode(noise).decode(), "inputEncoding": "base64", "style": "canonical"}),
            ("base58/encode 8,192 bytes", "/v1/base58/encode", {"text": noise[:8192].hex(), "inputEncoding": "hex"}),
            ("base85/encode 700 KB", "/v1/base85/encode", {"text": base64.b64encode(noise).decode(), "inputEncoding": "base64"}),
            ("html-entities/encode hex 1 MB", "/v1/html-entities/encode", {"text": text, "mode": "hex"}),
            ("string/escape c 700 KB of noise", "/v1/string/escape", {"text": base64.b64encode(noise).decode(), "inputEncoding": "base64", "syntax": "c"}),
            ("charset/detect 700 KB of noise", "/v1/charset/detect", {"input": base64.b64encode(noise).decode(), "inputEncoding": "base64"}),
            ("xor/brute 4,096 bytes, 2-byte keys", "/v1/xor/brute", {"input": noise[:4096].hex(), "keyLength": 2}),
            ("compress bzip2 9, 1 MB", "/v1/compress", {"input": text, "format": "bzip2"}),
            ("compress xz 6, 1 MB", "/v1/compress", {"input": text, "format": "xz"}),
            ("compress brotli 11, 1 MB", "/v1/compress", {"input": text, "format": "brotli", "level": 11}),
            ("compress zstd 19, 1 MB", "/v1/compress", {"input": text, "format": "zstd", "level": 19}),
            (f"decompress a {len(bomb):,}-byte gzip of 64 MiB", "/v1/decompress", {"input": base64.b64encode(bomb).decode()}),
            ("archive/list, tar.gz of 12,000 entries", "/v1/archive/list", {"input": base64.b64encode(many.getvalue()).decode()}),
        ]
        print()
        print("largest requests at the default limits")
        print(f"{'case':<44} {'status':>6} {'answer bytes':>13} {'ms':>8}")
        for name, path, body in cases:
            payload = json.dumps(body).encode()
            start = time.perf_counter()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
            conn.request("POST", path, payload, {"Content-Type": "application/json"})
            resp = conn.getresponse()
            data = resp.read()
            took = time.perf_counter() - start
            conn.close()
            print(f"{name:<44} {resp.status:>6} {len(data):>13,} {took * 1000:>8.1f}")


main()
