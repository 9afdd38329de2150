#!/usr/bin/env python3
"""Calls every operation of a running wrench once, for the footprint benchmark's third RSS figure.

    bench/every_op.py BASE_URL [API_KEY]

Each operation is called through one of its routes with its first declared example that is not
an error example (a POST body, or a GET's example parameters); path parameters get their
example or a placeholder. Answers are not checked beyond being HTTP answers: the point is that
every operation has run once, loading whatever it loads. Prints how many operations were
called and the statuses seen.

With WRENCH_EVERY_OP_PID set to the server's process id (on the same machine), it also prints
to stderr the operations after which the server's resident memory grew most, and by how much:
what each builds on first use.
"""
import collections
import json
import os
import re
import sys
import urllib.error
import urllib.parse
import urllib.request

base, key = sys.argv[1].rstrip("/"), (sys.argv[2] if len(sys.argv) > 2 else None)


def send(method, path, body=None, query=None):
    url = base + path + ("?" + urllib.parse.urlencode(query) if query else "")
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method.upper())
    if data is not None:
        req.add_header("Content-Type", "application/json")
    if key:
        req.add_header("X-API-Key", key)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            r.read()
            return r.status
    except urllib.error.HTTPError as e:
        e.read()
        return e.code
    except Exception:
        return 0


doc = json.load(urllib.request.urlopen(base + "/openapi.json"))
routes = collections.defaultdict(list)
for path, item in doc["paths"].items():
    for method, op in item.items():
        if method in ("get", "post", "put", "patch", "delete") and "operationId" in op:
            # An operation's routes share an operationId stem (`avatarGet`, `avatar`).
            routes[re.sub("Get$", "", op["operationId"])].append((method, path, op))

pid = os.environ.get("WRENCH_EVERY_OP_PID")


def rss_kb():
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))


grew = []
statuses = collections.Counter()
for stem, choices in routes.items():
    # The route with a body example first: it carries real input.
    choices.sort(key=lambda c: 0 if (c[2].get("requestBody") or {}).get("content") else 1)
    method, path, op = choices[0]
    if "text/event-stream" in json.dumps(op.get("responses", {})):
        continue  # a live stream would not end
    params = {p["name"]: p for p in op.get("parameters", []) if "$ref" not in p}
    body = None
    content = (op.get("requestBody") or {}).get("content", {}).get("application/json", {})
    for ex in content.get("examples", {}).values():
        if "(4" not in ex.get("summary", ""):
            body = ex["value"]
            break
    if body is None and content:
        body = {}
    concrete = path
    for name, p in params.items():
        if p["in"] == "path":
            concrete = concrete.replace("{" + name + "}", str(p.get("example", "x")))
    query = {n: p["example"] for n, p in params.items() if p["in"] == "query" and "example" in p}
    before = rss_kb() if pid else 0
    statuses[send(method, concrete, body, query)] += 1
    if pid:
        grew.append((rss_kb() - before, stem))
for kb, stem in sorted(grew, reverse=True)[:15]:
    print(f"{stem}: +{kb / 1024:.1f} MiB", file=sys.stderr)
print(f"operations called: {sum(statuses.values())} of {len(routes)}; statuses: {dict(sorted(statuses.items()))}")
