"""Writes the e-mail domain lists wrench embeds (data/email/*.txt) from the packages they come
from, unpacked by hand into one directory:

  disposable_email_domains/       the PyPI wheel of disposable-email-domains 0.0.293
  free-email-domains/package/     the npm package free-email-domains 1.12.6
  role-based-email-addresses/package/  the npm package role-based-email-addresses 3.1.0

Usage: python3 data/email/extract.py DIR   (node is needed to read the role list)
"""

import json
import pathlib
import subprocess
import sys

src = pathlib.Path(sys.argv[1])
out = pathlib.Path(__file__).parent
sys.path.insert(0, str(src))
import disposable_email_domains as d  # noqa: E402

def write(name, header, items):
    items = sorted({i.strip().lower() for i in items if i.strip()})
    (out / name).write_text("".join(f"# {h}\n" for h in header) + "\n".join(items) + "\n")
    print(name, len(items))

write("disposable.txt", ["disposable-email-domains 0.0.293 (PyPI), blocklist; MIT, see disposable-LICENSE.txt"], d.blocklist)
free = json.loads((src / "free-email-domains/package/domains.json").read_text())
write("free.txt", ["free-email-domains 1.12.6 (npm); MIT, see free-LICENSE.md"], free)
roles = json.loads(subprocess.check_output(
    ["node", "-e", "console.log(JSON.stringify(require(process.argv[1])))",
     str((src / "role-based-email-addresses/package/src/index.js").resolve())]))
write("role.txt", ["role-based-email-addresses 3.1.0 (npm); MIT, see role-LICENSE"], roles)
