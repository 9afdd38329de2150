// Calls a running wrench through openapi-fetch with the types openapi-typescript generated
// from openapi/openapi.json (`schema.d.ts`): one operation of each kind of input and output.
// Compiled with `tsc --strict`, so a type the generator got wrong fails the build, not a user.
//
// Usage: WRENCH_TEST_URL=http://127.0.0.1:8080 WRENCH_TEST_KEY=... node out/smoke.js

import createClient from "openapi-fetch";
import type { components, paths } from "./schema.js";

const client = createClient<paths>({
  baseUrl: process.env.WRENCH_TEST_URL,
  headers: { "X-API-Key": process.env.WRENCH_TEST_KEY ?? "" },
});
const done: string[] = [];

function check(step: string, ok: boolean, detail: unknown): void {
  if (!ok) {
    console.error(`typescript smoke: ${step} failed:`, detail);
    process.exit(1);
  }
  done.push(step);
}

// JSON in, JSON out.
{
  const { data, error } = await client.POST("/v1/base64/encode", { body: { text: "wrench" } });
  check("json", data?.data.encoded === "d3JlbmNo", error);
}

// GET with a query string.
{
  const { data, error } = await client.GET("/v1/holidays/list", { params: { query: { country: "DE", year: 2025 } } });
  check("get query", data?.data.holidays.some((h) => h.date === "2025-12-25") === true, error);
}

// A path parameter.
{
  const created = await client.POST("/v1/paste/create", {
    body: { content: "fn main() {}", language: "rust", maxViews: 1 },
  });
  const id = created.data?.data.id ?? "";
  const { data, error } = await client.GET("/v1/paste/{id}", { params: { path: { id } } });
  check("path parameter", data?.data.content === "fn main() {}", error ?? created.error);
  check("burn after reading", data?.data.viewsLeft === 0, data);
  const again = await client.GET("/v1/paste/{id}", { params: { path: { id } } });
  check("burnt", again.response.status === 404, again.error);
}

// Image bytes: images are not JSON, so the call says how to read the body.
{
  // The body is typed on its own: written inline beside parseAs, TypeScript 5.9 loses the
  // parseAs literal and types `data` as the document's string.
  const body: components["schemas"]["QrInput"] = { text: "hello", format: "png", size: 120 };
  const { data, response } = await client.POST("/v1/qr/generate", { body, parseAs: "arrayBuffer" });
  const bytes = new Uint8Array(data ?? new ArrayBuffer(0));
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].every((b, i) => bytes[i] === b);
  check("image bytes", png, response.headers.get("content-type"));
  const svg = await client.POST("/v1/qr/generate", { body: { text: "hello" }, parseAs: "text" });
  check("svg text", (svg.data ?? "").startsWith("<svg"), svg.response.status);
}

// A redirect, not followed, with the visitor's query forwarded; then its statistics.
{
  const link = await client.POST("/v1/short-url/create", {
    body: { url: "https://example.com/smoke", maxVisits: 1, forwardQuery: true, redirectStatus: 307, tags: ["smoke"] },
  });
  const slug = link.data?.data.slug ?? "";
  check("link settings", link.data?.data.redirectStatus === 307 && link.data?.data.tags[0] === "smoke", link.error);
  const { response } = await client.GET("/v1/short-url/r/{slug}", {
    params: { path: { slug } },
    redirect: "manual",
    headers: { Referer: "https://ts.example/" },
    querySerializer: () => "utm_source=ts",
  });
  check(
    "redirect",
    response.status === 307 && response.headers.get("location") === "https://example.com/smoke?utm_source=ts",
    response.status,
  );
  const again = await client.GET("/v1/short-url/r/{slug}", { params: { path: { slug } }, redirect: "manual" });
  check("visits spent", again.response.status === 410 && again.error?.error.code === "LINK_EXPIRED", again.error);
  // The embedded store records a visit just after its redirect: look again for up to 2 s.
  let stats = (await client.GET("/v1/short-url/{slug}/stats", { params: { path: { slug }, query: { interval: "hour" } } })).data?.data;
  for (let i = 0; i < 40 && stats?.visits.total !== 1; i++) {
    await new Promise((r) => setTimeout(r, 50));
    stats = (await client.GET("/v1/short-url/{slug}/stats", { params: { path: { slug }, query: { interval: "hour" } } })).data?.data;
  }
  check(
    "visit statistics",
    stats?.visits.total === 1 &&
      stats.recentVisits[0]?.referrer === "ts.example" &&
      stats.top.referrers[0]?.value === "ts.example" &&
      stats.series.reduce((n, b) => n + b.total, 0) === 1,
    stats,
  );
}

// A webhook receive URL with an arbitrary body.
{
  const inbox = await client.POST("/v1/webhook/inbox/create");
  const id = inbox.data?.data.id ?? "";
  const body = "a=1&b=two";
  const received = await client.POST("/v1/webhook/inbox/{id}/receive", {
    params: { path: { id } },
    body,
    bodySerializer: (b) => b,
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
  });
  const listed = await client.GET("/v1/webhook/inbox/{id}/payloads", { params: { path: { id }, query: { method: "POST" } } });
  const first = listed.data?.data.payloads[0];
  check(
    "webhook receive",
    received.response.status === 200 &&
      first?.contentType === "application/x-www-form-urlencoded" &&
      first?.size === body.length &&
      first?.form?.[1]?.value === "two",
    listed.error ?? received.error,
  );
  const raw = await client.GET("/v1/webhook/inbox/{id}/payloads/{pid}/raw", {
    params: { path: { id, pid: first?.id ?? "" } },
    parseAs: "text",
  });
  check("webhook raw bytes", raw.response.status === 200 && raw.data === body, raw.error);
}

// An error envelope, read as its typed error.
{
  const { error, response } = await client.POST("/v1/base64/decode", { body: { encoded: "%%%" } });
  // The error is the union of the operation's error envelopes; the code narrows it.
  const field = error?.error.code === "VALIDATION_ERROR" && "field" in error.error ? error.error.field : undefined;
  check("typed error", response.status === 400 && field === "encoded", error);
}

console.log(`typescript smoke: ${done.length} calls worked: ${done.join(", ")}`);
