"""Judges the SDK snippets' answers: each must have its example's documented status (any 3xx for
a redirect), except that an operation whose data set or provider this server lacks may say so
with 502, 503 or 504 and a code it declares. Shared by run_python.py and the TypeScript run.

Usage (TypeScript): python judge.py typescript RESULTS.json
"""

import json
import sys

ELSEWHERE = {"DATASET_NOT_INSTALLED", "PROVIDER_NOT_CONFIGURED"}


def judge(language, results):
    """Prints a summary and returns the failures' descriptions."""
    exact, unconfigured, failures = 0, 0, []
    for r in results:
        status, expected = r["status"], r["expected"]
        if status in (502, 503, 504) and r["code"] in ELSEWHERE and r["code"] in r["errorCodes"]:
            unconfigured += 1
        elif status == expected or (300 <= status < 400 and 300 <= expected < 400):
            exact += 1
        else:
            failures.append(f"{r['operationId']}: answered {status} ({r['code']}), not {expected}")
    print(
        f"{language} snippets: {exact} answered as documented, "
        f"{unconfigured} said their data set or provider is missing, {len(failures)} failed"
    )
    for f in failures:
        print("  " + f)
    return failures


if __name__ == "__main__":
    with open(sys.argv[2]) as f:
        sys.exit(1 if judge(sys.argv[1], json.load(f)) else 0)
