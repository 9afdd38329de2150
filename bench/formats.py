"""Speed of the query, validation and formatting operations on 1 MiB documents, against jq,
xmllint and the Python libraries the tests compare with, in one run.

    python3 bench/formats.py [rounds]
    (needs a release build, jq, xmllint, and PyPI jmespath, jsonpath-ng, jsonschema, lxml, sqlparse)

A release server runs with a body limit of 24 MiB and a response limit of 160 MiB. wrench is
timed as a client sees it: the JSON request sent over loopback, parsed, the work, the answer
written and read back. jq and xmllint are timed reading a file and writing to /dev/null (their
start-up included, a few milliseconds); the Python libraries in this process, on text already
in memory (parsing included). Best of `rounds` (3) each; the ratio is wrench's time over the
reference's.

The documents are generated and deterministic: an array of 3,700 orders (ids, customers,
nested items with prices and tags) for JSON, the same orders as XML, and 4,000 SQL
statements; each about 1 MiB.
"""

import json
import os
import random
import shutil
import sys
import tempfile

import jmespath
import jsonschema
import sqlparse
from jsonpath_ng.ext import parse as jsonpath
from lxml import etree

from harness import best, request, server, tool

PORT = 18092
ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 3


def orders(n):
    rng = random.Random(46)
    tags = ["new", "gift", "priority", "bulk", "return"]
    return [{
        "id": i,
        "customer": {"name": f"customer {rng.randrange(10**6)}", "country": rng.choice(["DE", "FR", "US", "JP", "BR"])},
        "items": [{"sku": f"SKU-{rng.randrange(10**5):05}", "price": round(rng.random() * 100, 2), "qty": rng.randint(1, 5),
                   "tags": rng.sample(tags, rng.randint(0, 3))} for _ in range(rng.randint(1, 4))],
        "paid": rng.random() < 0.8,
    } for i in range(n)]


SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "array",
    "items": {
        "type": "object",
        "required": ["id", "customer", "items", "paid"],
        "properties": {
            "id": {"type": "integer", "minimum": 0},
            "customer": {"type": "object", "required": ["name"], "properties": {
                "name": {"type": "string", "minLength": 1}, "country": {"enum": ["DE", "FR", "US", "JP", "BR"]}}},
            "items": {"type": "array", "minItems": 1, "items": {"type": "object", "properties": {
                "sku": {"type": "string", "pattern": "^SKU-[0-9]{5}$"}, "price": {"type": "number", "minimum": 0},
                "qty": {"type": "integer", "minimum": 1}, "tags": {"type": "array", "uniqueItems": True}}}},
            "paid": {"type": "boolean"},
        },
    },
}


def as_xml(doc):
    out = ["<orders>"]
    for o in doc:
        out.append(f'<order id="{o["id"]}" paid="{str(o["paid"]).lower()}"><customer country="{o["customer"]["country"]}">{o["customer"]["name"]}</customer>')
        for it in o["items"]:
            out.append(f'<item sku="{it["sku"]}" qty="{it["qty"]}"><price>{it["price"]}</price>' + "".join(f"<tag>{t}</tag>" for t in it["tags"]) + "</item>")
        out.append("</order>")
    out.append("</orders>")
    return "".join(out)


def sql_text(n):
    rng = random.Random(47)
    return "".join(f"select o.id, c.name, sum(i.price * i.qty) as total from orders o join customers c on c.id = o.customer "
                   f"join items i on i.order_id = o.id where o.paid = {rng.choice(['true', 'false'])} and c.country in ('DE', 'FR') "
                   f"group by o.id, c.name having sum(i.price) > {rng.randrange(100)} order by total desc;\n" for _ in range(n))


def main():
    for needed in ("jq", "xmllint"):
        if shutil.which(needed) is None:
            raise SystemExit(f"{needed} is not installed")
    work = tempfile.mkdtemp()
    doc = orders(3700)
    text = json.dumps(doc)
    xml = as_xml(doc)
    sql = sql_text(4000)
    for name, content in (("doc.json", text), ("doc.xml", xml), ("doc.sql", sql)):
        with open(os.path.join(work, name), "w") as f:
            f.write(content)
    with server(PORT, os.path.join(work, "data")):
        path_query = "$[?(@.paid == true)].items[*].price"
        jp = "[?paid].items[].price"
        jq_program = "[.[] | select(.paid) | .items[].price]"
        xpath = "//order[@paid='true']/item/price"
        cases = [
            ("json/query JSONPath", "jq", request(PORT, "/v1/json/query", {"json": doc, "query": "$[?@.paid == true].items[*].price"}),
             tool(["jq", "-c", "[.[] | select(.paid) | .items[].price]"], os.path.join(work, "doc.json"))),
            ("json/query JSONPath", "jsonpath-ng", None, lambda: [m.value for m in jsonpath(path_query).find(json.loads(text))]),
            ("json/query JMESPath", "jmespath", request(PORT, "/v1/json/query", {"json": doc, "query": jp, "language": "jmespath"}),
             lambda: jmespath.search(jp, json.loads(text))),
            ("json/query jq", "jq", request(PORT, "/v1/json/query", {"json": doc, "query": jq_program, "language": "jq"}),
             tool(["jq", "-c", jq_program], os.path.join(work, "doc.json"))),
            ("xml/query", "xmllint --xpath", request(PORT, "/v1/xml/query", {"xml": xml, "xpath": xpath}),
             tool(["xmllint", "--xpath", xpath, "-"], os.path.join(work, "doc.xml"))),
            ("xml/query", "lxml", None, lambda: etree.fromstring(xml.encode()).xpath(xpath)),
            ("json-schema/validate", "jsonschema", request(PORT, "/v1/json-schema/validate", {"json": doc, "schema": SCHEMA}),
             lambda: jsonschema.Draft202012Validator(SCHEMA).is_valid(json.loads(text))),
            ("xml/format", "xmllint --format", request(PORT, "/v1/xml/format", {"xml": xml}), tool(["xmllint", "--format", "-"], os.path.join(work, "doc.xml"))),
            ("sql/format", "sqlparse", request(PORT, "/v1/sql/format", {"sql": sql}), lambda: sqlparse.format(sql, reindent=True, keyword_case="upper")),
            ("yaml/format", "-", request(PORT, "/v1/yaml/format", {"yaml": "".join(f"key{i}:   [a, b,  {{c: {i}}}]   # note {i}\n" for i in range(23_000))}), None),
        ]
        print(f"documents: JSON {len(text):,} bytes, XML {len(xml):,}, SQL {len(sql):,}; best of {ROUNDS}; {os.cpu_count()} cores")
        print(f"{'case':<22} {'reference':<18} {'wrench ms':>10} {'ref ms':>10} {'ratio':>7}")
        measured = {}
        for name, ref, ours, theirs in cases:
            if ours is not None:
                ours()  # warm: the first request of a kind pays for page faults
                measured[name] = best(ours, ROUNDS)
            a = measured[name]
            if theirs is None:
                print(f"{name:<22} {ref:<18} {a * 1000:>10.1f} {'':>10} {'':>7}")
                continue
            b = best(theirs, ROUNDS)
            print(f"{name:<22} {ref:<18} {a * 1000:>10.1f} {b * 1000:>10.1f} {a / b:>7.2f}")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
