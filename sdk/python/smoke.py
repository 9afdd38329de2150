"""Calls a running wrench through the Python client openapi-python-client generated from
openapi/openapi.json: one operation of each kind of input and output.

Usage: WRENCH_TEST_URL=http://127.0.0.1:8080 WRENCH_TEST_KEY=... python smoke.py (with the generated
package importable). Exits non-zero, naming the step, on the first answer that is not right.
"""

import os
import sys
import time

from wrench_client import AuthenticatedClient
from wrench_client.api.images import qr_generate
from wrench_client.api.storage import (
    create_paste,
    create_short_url,
    create_webhook_inbox,
    follow_short_url,
    get_paste,
    get_short_url_stats,
    get_webhook_payload_raw,
    list_webhook_payloads,
    receive_webhook_at_path_put,
)
from wrench_client.api.lookups import holidays_list_get
from wrench_client.api.text_and_data import base_64_decode, base_64_encode
from wrench_client.models import (
    InboxCreateInput,
    Interval,
    Base64DecodeInput,
    Base64EncodeInput,
    InvalidJsonOrValidationOrResultTooLargeError,
    PasteCreateInput,
    QrInput,
    QrFormat,
    ShortUrlCreateInput,
)
from wrench_client.types import File

client = AuthenticatedClient(base_url=os.environ["WRENCH_TEST_URL"], token=os.environ["WRENCH_TEST_KEY"])
done = []


def check(step, ok, detail):
    if not ok:
        sys.exit(f"python smoke: {step} failed: {detail}")
    done.append(step)


# JSON in, JSON out.
r = base_64_encode.sync_detailed(client=client, body=Base64EncodeInput(text="wrench"))
check("json", r.status_code == 200 and r.parsed.data.encoded == "d3JlbmNo", r.content)

# GET with a query string.
r = holidays_list_get.sync_detailed(client=client, country="DE", year=2025)
dates = [h.date for h in r.parsed.data.holidays] if r.status_code == 200 else []
check("get query", "2025-12-25" in dates, r.content)

# A path parameter.
created = create_paste.sync(client=client, body=PasteCreateInput(content="fn main() {}", language="rust", max_views=1))
r = get_paste.sync_detailed(id=created.data.id, client=client)
check("path parameter", r.status_code == 200 and r.parsed.data.content == "fn main() {}", r.content)
check("burn after reading", r.parsed.data.views_left == 0, r.content)
r = get_paste.sync_detailed(id=created.data.id, client=client)
check("burnt", r.status_code == 404, r.content)

# Image bytes.
r = qr_generate.sync_detailed(client=client, body=QrInput(text="hello", format_=QrFormat.PNG, size=120))
png = r.parsed.payload.read() if isinstance(r.parsed, File) else b""
check("image bytes", png.startswith(b"\x89PNG\r\n\x1a\n"), (r.headers.get("content-type"), type(r.parsed)))

# A redirect, not followed, with the visitor's query forwarded; then its statistics.
link = create_short_url.sync(
    client=client,
    body=ShortUrlCreateInput(url="https://example.com/smoke", max_visits=1, forward_query=True, tags=["smoke"]),
)
check("link settings", link.data.tags == ["smoke"] and link.data.forward_query and link.data.max_visits == 1, link)
r = client.get_httpx_client().get(f"/v1/short-url/r/{link.data.slug}?utm_source=py", headers={"Referer": "https://py.example/"})
check("redirect", r.status_code == 302 and r.headers["location"] == "https://example.com/smoke?utm_source=py", r.headers)
r = follow_short_url.sync_detailed(slug=link.data.slug, client=client)
check("visits spent", r.status_code == 410, r.content)
# The embedded store records a visit just after its redirect: look again for up to 2 s.
for _ in range(40):
    stats = get_short_url_stats.sync(slug=link.data.slug, client=client, interval=Interval.HOUR, visits=5).data
    if stats.visits.total == 1:
        break
    time.sleep(0.05)
check(
    "visit statistics",
    stats.visits.total == 1
    and [v.referrer for v in stats.recent_visits] == ["py.example"]
    and [t.value for t in stats.top.referrers] == ["py.example"]
    and sum(b.total for b in stats.series) == 1,
    stats,
)

# A webhook receive URL with an arbitrary body.
inbox = create_webhook_inbox.sync(client=client, body=InboxCreateInput(max_payloads=5))
body = b"\x00\x01 not JSON \xff"
r = receive_webhook_at_path_put.sync_detailed(
    id=inbox.data.id, path="orders/7", client=client, body=File(payload=body, mime_type="application/octet-stream")
)
listed = list_webhook_payloads.sync(id=inbox.data.id, client=client, method="PUT")
first = listed.data.payloads[0] if listed.data.payloads else None
check(
    "webhook receive",
    r.status_code == 200 and inbox.data.max_payloads == 5 and first is not None and first.size == len(body) and first.path == "/orders/7",
    r.content,
)
raw = get_webhook_payload_raw.sync_detailed(id=inbox.data.id, pid=first.id, client=client)
check("webhook raw bytes", raw.status_code == 200 and raw.content == body, raw.content)

# An error envelope, read as its typed model.
r = base_64_decode.sync_detailed(client=client, body=Base64DecodeInput(encoded="%%%"))
err = r.parsed
check(
    "typed error",
    r.status_code == 400
    and isinstance(err, InvalidJsonOrValidationOrResultTooLargeError)
    and err.error.code.value == "VALIDATION_ERROR",
    r.content,
)

print(f"python smoke: {len(done)} calls worked: {', '.join(done)}")
