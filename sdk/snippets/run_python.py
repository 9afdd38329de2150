"""Runs every operation's Python snippet (from write.mjs) with the generated wrench_client, each as
a program of its own, and judges the answers (judge.py).

Usage: WRENCH_API_KEY=... python run_python.py DIR/snippets.json
"""

import contextlib
import io
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from judge import judge  # noqa: E402

with open(sys.argv[1]) as f:
    snippets = json.load(f)
results = []
for s in snippets:
    if s["sendsBody"] and "body=" not in s["python"]:
        results.append({**s, "status": 0, "code": "the snippet sends no body"})
        continue
    scope = {"__name__": "__main__"}
    try:
        # The snippet prints its answer; that is kept out of the log.
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(s["python"], s["operationId"] + ".py", "exec"), scope)
    except Exception as e:  # a snippet that does not run is a failure, named below
        results.append({**s, "status": 0, "code": f"{type(e).__name__}: {e}"})
        continue
    response = scope["response"]
    try:
        code = json.loads(response.content)["error"]["code"]
    except Exception:
        code = None
    results.append({**s, "status": response.status_code, "code": code})
sys.exit(1 if judge("python", results) else 0)
