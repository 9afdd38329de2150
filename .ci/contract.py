"""Writes the Schemathesis configuration for contract fuzzing from the OpenAPI document.

Operations whose declaration says they refuse some schema-valid input (`rejects = ...` in
`#[op]`, `x-rejects` in the document: invalid Base64, malformed JSON inside a string field,
an invalid regular expression) may answer such input with their documented 400. Every other
check, and every other operation, keeps Schemathesis's defaults, except that 413, 414 and 431
count as correct answers to a body, request target or header section over the server's limits
(1 MiB, 65,534 bytes, 32 KiB): Schemathesis does not know them and can generate larger ones.
"""

import json
import os
import sys

doc = json.load(open(sys.argv[1]))
rejecting = sorted(
    op["operationId"]
    for item in doc["paths"].values()
    for op in item.values()
    if isinstance(op, dict) and "x-rejects" in op
)

print('base-url = "http://127.0.0.1:${ST_PORT}"')
print('headers = { "X-API-Key" = "${ST_API_KEY}" }')
print(f"generation.max-examples = {int(os.environ.get('ST_MAX_EXAMPLES', '60'))}")
print()
print("[checks.negative_data_rejection]")
print('expected-statuses = ["400", "401", "403", "404", "405", "406", "409", "413", "414", "415", "422", "428", "429", "431"]')
print()
print("[checks.positive_data_acceptance]")
print('expected-statuses = ["2xx", "3xx", "401", "403", "404", "409", "413", "414", "429", "431"]')
if rejecting:
    print()
    print("[[operations]]")
    print("include-operation-id = [" + ", ".join(json.dumps(i) for i in rejecting) + "]")
    print('checks.positive_data_acceptance.expected-statuses = ["2xx", "3xx", "400", "401", "403", "404", "409", "413", "414", "429", "431"]')
