#!/usr/bin/env python3
"""Regenerates choosealicense.json from the npm package @rexxars/choosealicense-list.

Usage: extract.py PACKAGE_DIR > choosealicense.json
where PACKAGE_DIR is the unpacked `package/` folder of `npm pack @rexxars/choosealicense-list@1.1.2`.
Keeps, per licence, the SPDX id, title, nickname, description and the permission, condition and
limitation tags, plus the label and description of every tag; licence texts are left out.
"""
import json
import sys

pkg = sys.argv[1]
licenses = json.load(open(f"{pkg}/licenses.json"))
rules = json.load(open(f"{pkg}/data.json"))["rules"]
out = {
    "source": "choosealicense.com via @rexxars/choosealicense-list 1.1.2 (MIT)",
    "rules": {
        kind: {r["tag"]: {"label": r["label"], "description": r["description"]} for r in entries}
        for kind, entries in rules.items()
    },
    "licenses": {
        lic["spdx-id"]: {
            "title": lic["title"],
            "nickname": lic.get("nickname") or None,
            "description": lic["description"],
            "permissions": lic["permissions"],
            "conditions": lic["conditions"],
            "limitations": lic["limitations"],
        }
        for lic in sorted(licenses.values(), key=lambda l: l["spdx-id"])
    },
}
json.dump(out, sys.stdout, indent=1, ensure_ascii=False)
sys.stdout.write("\n")
