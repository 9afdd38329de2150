"""Writes countries.tsv (ISO 3166-1 alpha-2 code, English name, continent code, calling codes)
from the npm package countries-list 3.4.1 (MIT, Annexare Studio).

Usage: npm pack countries-list@3.4.1 && tar xzf countries-list-3.4.1.tgz &&
       python3 data/countries/extract.py package/countries.min.json > data/countries/countries.tsv
"""

import json
import sys

data = json.load(open(sys.argv[1], encoding="utf-8"))
print("# code\tname\tcontinent\tcalling codes (countries-list 3.4.1, MIT)")
for code in sorted(data):
    c = data[code]
    print(f"{code}\t{c['name']}\t{c['continent']}\t{','.join(str(p) for p in c['phone'])}")
