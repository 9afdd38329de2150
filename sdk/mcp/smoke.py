"""Uses wrench as an AI agent would, through the official MCP Python SDK: over Streamable HTTP
at /mcp (with an API key) and over stdio (`wrench mcp`). Lists the tools, calls one of each
kind (JSON with structured output, a query operation, path parameters, an image, a redirect),
and checks that bad input comes back as a structured tool error naming the field.

Usage: python smoke.py BASE_URL API_KEY WRENCH_TEST_BINARY
"""

import asyncio
import base64
import json
import sys
import tempfile

import httpx2
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

BASE, KEY, BINARY = sys.argv[1], sys.argv[2], sys.argv[3]
done = []


def check(step, ok, detail):
    if not ok:
        sys.exit(f"mcp smoke: {step} failed: {detail}")
    done.append(step)


def structured(result):
    """The structured content of a successful call."""
    return result.structured_content if not result.is_error else None


async def exercise(session, transport):
    await session.initialize()
    tools = (await session.list_tools()).tools
    names = {t.name: t for t in tools}
    expected = json.load(open("openapi/openapi.json"))
    operations = {
        o["operationId"] for item in expected["paths"].values() for o in item.values()
    }
    check(f"{transport}: list", len(tools) >= 100 and set(names) <= operations, len(tools))
    encode = names["base64Encode"]
    check(f"{transport}: schemas", encode.input_schema["required"] == ["text"] and "encoded" in encode.output_schema["properties"], encode)

    r = await session.call_tool("base64Encode", {"text": "wrench"})
    check(f"{transport}: json", structured(r) == {"encoded": "d3JlbmNo"}, r)

    r = await session.call_tool("holidaysList", {"country": "DE", "year": 2025})
    dates = [h["date"] for h in (structured(r) or {}).get("holidays", [])]
    check(f"{transport}: lookup", "2025-12-25" in dates, r)

    r = await session.call_tool("createPaste", {"content": "fn main() {}", "language": "rust", "maxViews": 1})
    paste_id = (structured(r) or {}).get("id")
    r = await session.call_tool("getPaste", {"id": paste_id})
    check(f"{transport}: path parameter", (structured(r) or {}).get("content") == "fn main() {}", r)
    check(f"{transport}: burn after reading", (structured(r) or {}).get("viewsLeft") == 0, r)
    r = await session.call_tool("getPaste", {"id": paste_id})
    check(f"{transport}: burnt", r.is_error, r)

    r = await session.call_tool("qrGenerate", {"text": "hello", "format": "png", "size": 120})
    image = r.content[0] if r.content else None
    png = base64.b64decode(image.data) if image is not None and image.type == "image" else b""
    check(f"{transport}: image", image is not None and image.mime_type == "image/png" and png.startswith(b"\x89PNG"), r)

    r = await session.call_tool("createShortUrl", {"url": "https://example.com/mcp", "maxVisits": 1})
    slug = (structured(r) or {}).get("slug")
    r = await session.call_tool("followShortUrl", {"slug": slug})
    check(f"{transport}: redirect", (structured(r) or {}).get("location") == "https://example.com/mcp", r)
    r = await session.call_tool("followShortUrl", {"slug": slug})
    check(f"{transport}: visits spent", r.is_error, r)

    r = await session.call_tool("base64Encode", {"text": "x", "urlSafe": "yes"})
    error = r.structured_content or {}
    check(
        f"{transport}: structured error",
        r.is_error and error.get("code") == "VALIDATION_ERROR" and error.get("field") == "urlSafe" and error.get("status") == 400,
        r,
    )


async def main():
    async with httpx2.AsyncClient(headers={"X-API-Key": KEY}, timeout=30) as http:
        async with streamable_http_client(f"{BASE}/mcp", http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                await exercise(session, "http")
    data = tempfile.mkdtemp(prefix="wrench-mcp-")
    params = StdioServerParameters(command=BINARY, args=["mcp", "--dev"], env={"WRENCH_LOG": "warn", "WRENCH_DATA_DIR": data})
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await exercise(session, "stdio")
    print(f"mcp smoke: {len(done)} checks passed: {', '.join(done)}")


asyncio.run(main())
