"""Writes carriers.tsv: the English carrier names of libphonenumber's carrier data (number
prefix, with the country calling code, to the name of the network the prefix was allocated
to), as shipped in the Python port phonenumbers 9.0.43 (Apache-2.0).

Usage: pip install phonenumbers==9.0.43; python3 data/phone/extract_carriers.py > data/phone/carriers.tsv
"""

import phonenumbers
from phonenumbers.carrierdata import CARRIER_DATA

print(f"# prefix\tcarrier (libphonenumber carrier data, English, phonenumbers {phonenumbers.__version__}, Apache-2.0)")
for prefix in sorted(CARRIER_DATA, key=lambda p: (len(p), p)):
    name = CARRIER_DATA[prefix].get("en")
    if name:
        print(f"{prefix}\t{name}")
