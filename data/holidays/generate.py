"""Writes holidays.tsv.gz: the public holidays of every country the Python library
`holidays` 0.108 (MIT) supports, for the years 2000 to 2050, each with its local and English
name and whether it is an observed (substitute) day, plus for each subdivision the holidays it
adds to or removes from the national list.

Format (UTF-8 text, gzip): a header line per block, `@CC` for a country or `@CC-SUB` for a
subdivision, with the country's default language, the years the library covers and (for a
country) every subdivision code it knows, comma-separated;
then one line per holiday, `YYYY-MM-DD<TAB>local name<TAB>English name<TAB>kind` where kind is
`public` or `observed` (and, in a subdivision block, `-` for a national holiday the
subdivision does not keep). Alias codes (three-letter and legacy) are left out.

Usage: pip install holidays==0.108; python3 data/holidays/generate.py | gzip -9n > data/holidays/holidays.tsv.gz
"""

import sys
import warnings

import holidays

FIRST, LAST = 2000, 2050
# How the library's English names mark a day that stands in for a holiday falling on a rest day.
OBSERVED_WORDS = ("observed", "substitute", "in lieu", "alternative holiday")
warnings.simplefilter("ignore")


def entries(cc, subdiv=None):
    cls = holidays.country_holidays(cc).__class__
    # Without a language the library follows the process locale; the local names are those
    # of the country's default language.
    local = holidays.country_holidays(cc, subdiv=subdiv, years=range(FIRST, LAST + 1),
                                      language=getattr(cls, "default_language", None))
    english_language = next((l for l in ("en_US", "en_GB", "en") if l in getattr(cls, "supported_languages", ())), None)
    english = holidays.country_holidays(cc, subdiv=subdiv, years=range(FIRST, LAST + 1), language=english_language) \
        if english_language else local
    out = set()
    for day, names in local.items():
        local_names = names.split("; ")
        english_names = english.get(day, names).split("; ")
        if len(english_names) != len(local_names):
            english_names = local_names
        for ln, en in zip(local_names, english_names):
            kind = "observed" if any(w in en.lower() for w in OBSERVED_WORDS) else "public"
            out.add((str(day), ln, en, kind))
    return out


def clean(text):
    return text.replace("\t", " ").replace("\n", " ")


supported = holidays.list_supported_countries()
for cc in sorted(supported):
    if len(cc) != 2:
        continue
    cls = holidays.country_holidays(cc).__class__
    national = entries(cc)
    years = f"{max(FIRST, getattr(cls, 'start_year', FIRST))}-{min(LAST, getattr(cls, 'end_year', LAST) or LAST)}"
    subdivisions = ",".join(sorted(getattr(cls, "subdivisions", ())))
    print(f"@{cc}\t{getattr(cls, 'default_language', '') or ''}\t{years}\t{subdivisions}")
    for e in sorted(national):
        print("\t".join(clean(x) for x in e))
    for sub in sorted(getattr(cls, "subdivisions", ())):
        try:
            regional = entries(cc, sub)
        except Exception as err:  # a subdivision the library lists but cannot build
            print(f"skipping {cc}-{sub}: {err}", file=sys.stderr)
            continue
        added, removed = regional - national, national - regional
        if not added and not removed:
            continue
        print(f"@{cc}-{sub}\t\t{years}")
        for e in sorted(added):
            print("\t".join(clean(x) for x in e))
        for e in sorted(removed):
            print("\t".join(clean(x) for x in e[:3]) + "\t-")
