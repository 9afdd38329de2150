"""Writes the Schemathesis configuration for contract fuzzing from the OpenAPI document.

Operations whose declaration says they refuse some schema-valid input (`rejects = ...` in
`#[op]`, `x-rejects` in the document: invalid Base64, malformed JSON inside a string field,
a domain that is not a DNS name) may answer such input with their documented 400. Operations
that contact other hosts and document 502 and 504 may answer with them: a generated host that
does not exist is a 502, and that is the contract (the server points at local fakes, so no
generated request leaves the machine). Every other check, and every other operation, keeps
Schemathesis's defaults, except that 413, 414 and 431 count as correct answers to a body,
request target or header section over the server's limits (1 MiB, 65,534 bytes, 32 KiB):
Schemathesis does not know them and can generate larger ones. Operations that document 503
PROVIDER_BUSY may answer it once fuzzing has spent a provider's request budget. Operations marked
`x-configured-answer` (a webhook receive URL) answer whatever their inbox was configured to
answer, any status, header fields, body and delay, which no check of the document can judge:
they are left out of fuzzing (their own tests in ops/storage cover them). Operations that
document 410 (a short link outside its validSince/validUntil period or past its maxVisits) may
answer it to a schema-valid request: like 404 and 409, it depends on what is stored, and
fuzzing creates links with such periods.
"""

import json
import os
import sys

doc = json.load(open(sys.argv[1]))
operations = [
    op
    for item in doc["paths"].values()
    for op in item.values()
    if isinstance(op, dict) and "operationId" in op
]
def busy(op):
    """Whether the operation documents 503 PROVIDER_BUSY (a provider's request budget, which
    wrench keeps to the provider's published limits, spent): fuzzing many requests a minute
    spends it, and then that answer is the contract."""
    ref = op["responses"].get("503", {}).get("$ref", "")
    return "ProviderBusy" in ref


groups = {}
for op in operations:
    key = (
        "x-rejects" in op,
        "502" in op["responses"] or "504" in op["responses"],
        busy(op),
        "410" in op["responses"],
    )
    if key != (False, False, False, False):
        groups.setdefault(key, []).append(op["operationId"])

# The rules no schema can state, each operation's own words from its declaration: the
# configuration lists them, so that a reader of a fuzzing run sees why a 400 to a schema-valid
# request is the contract there, and anything the schema could say instead shows up here.
print("# Rules that stay semantic (a schema-valid request these operations may refuse with 400):")
for op in sorted(operations, key=lambda o: o["operationId"]):
    if "x-rejects" in op:
        print(f"#   {op['operationId']}: {op['x-rejects']}")
print()
print('base-url = "http://127.0.0.1:${ST_PORT}"')
print('headers = { "X-API-Key" = "${ST_API_KEY}" }')
print(f"generation.max-examples = {int(os.environ.get('ST_MAX_EXAMPLES', '60'))}")
print()
print("[checks.negative_data_rejection]")
print('expected-statuses = ["400", "401", "403", "404", "405", "406", "409", "413", "414", "415", "422", "428", "429", "431"]')
print()
print("[checks.positive_data_acceptance]")
print('expected-statuses = ["2xx", "3xx", "401", "403", "404", "409", "413", "414", "429", "431"]')
POSITIVE = ["2xx", "3xx", "401", "403", "404", "409", "413", "414", "429", "431"]
for (rejects, upstream, budget, gone), ids in sorted(groups.items()):
    extra = (["502", "504"] if upstream else []) + (["503"] if budget else [])
    positive = POSITIVE + (["400"] if rejects else []) + (["410"] if gone else []) + extra
    print()
    print("[[operations]]")
    print("include-operation-id = [" + ", ".join(json.dumps(i) for i in sorted(ids)) + "]")
    print("checks.positive_data_acceptance.expected-statuses = [" + ", ".join(json.dumps(x) for x in positive) + "]")
    if extra:
        statuses = ", ".join(json.dumps(x) for x in ["2xx", "3xx", "4xx"] + extra)
        print(f"checks.not_a_server_error.expected-statuses = [{statuses}]")

configured = sorted(op["operationId"] for op in operations if op.get("x-configured-answer"))
if configured:
    # A receive URL answers what a fuzzer configured its inbox to give (any status, header
    # fields, body and a delay of up to 30 s), which no check of the document can judge, and
    # `--checks all` overrides turning checks off per operation: these routes are left out of
    # fuzzing. Their requests and default answers are tested in ops/storage (every method and
    # sub-path, binary bodies, configured answers).
    print()
    print("# Left out: answers their inbox was configured to give (any status, type, body, delay):")
    print("[[operations]]")
    print("include-operation-id = [" + ", ".join(json.dumps(i) for i in configured) + "]")
    print("enabled = false")
