#!/usr/bin/env python3
"""Regenerates units.json from the npm package cldr-units-full (Unicode CLDR JSON).

Usage: extract_units.py PACKAGE_DIR > units.json
where PACKAGE_DIR is the unpacked `package/` folder of `npm pack cldr-units-full@48.2.0`.
Keeps, for the locales below and the simple units ECMA-402 sanctions (plus the compound
"-per-" units CLDR names directly), the short, long and narrow unit patterns per plural
category, each unit's per-unit pattern, and the locale's compound "per" pattern.
"""
import json
import sys

# ECMA-402, "Single units sanctioned for use in ECMAScript".
SANCTIONED = """acre bit byte celsius centimeter day degree fahrenheit fluid-ounce foot gallon gigabit
gigabyte gram hectare hour inch kilobit kilobyte kilogram kilometer liter megabit megabyte meter
microsecond mile mile-scandinavian milliliter millimeter millisecond minute month nanosecond ounce
percent petabyte pound second stone terabit terabyte week yard year""".split()

LOCALES = """ar bn cs da de el en en-GB en-IN es es-MX fa fi fr fr-CA he hi hu id it ja ko ms nb nl pl
pt pt-PT ro ru sk sv sw th tr uk ur vi zh zh-Hant""".split()

pkg = sys.argv[1]
out = {"source": "Unicode CLDR 48.2.0 (cldr-units-full), Unicode License v3", "units": SANCTIONED, "locales": {}}
for loc in LOCALES:
    data = json.load(open(f"{pkg}/main/{loc}/units.json"))["main"][loc]["units"]
    entry = {}
    for width in ("short", "long", "narrow"):
        table = data[width]
        units = {}
        for key, value in table.items():
            if "-" not in key:
                continue
            unit = key.split("-", 1)[1]
            keep = unit in SANCTIONED or (
                "-per-" in unit and all(p in SANCTIONED for p in unit.split("-per-"))
            )
            if not keep or not isinstance(value, dict):
                continue
            patterns = {
                k[len("unitPattern-count-"):]: v
                for k, v in value.items()
                if k.startswith("unitPattern-count-") and "-case-" not in k and "-gender-" not in k
            }
            if not patterns:
                continue
            units[unit] = {"patterns": patterns}
            if "perUnitPattern" in value:
                units[unit]["per"] = value["perUnitPattern"]
        entry[width] = {"per": table["per"]["compoundUnitPattern"], "units": units}
    out["locales"][loc] = entry
json.dump(out, sys.stdout, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
sys.stdout.write("\n")
