// The short-link page (`/tools/short-links` and `/tools/short-links/{slug}`): makes a short link through POST
// /v1/short-url/create, or shows one link's statistics from GET /v1/short-url/{slug}/stats.
// Every text shown is set as text; a target is a link only when it is http or https.
"use strict";

/** Most buckets the visits table shows (the newest ones). */
const SERIES_ROWS = 60;

const FIELDS = ["url", "customSlug", "validUntil", "maxVisits", "redirectStatus", "forwardQuery"];

function clearErrors() {
  $("form-error").textContent = "";
  for (const name of FIELDS) {
    $("f-" + name + "-error").textContent = "";
    $("f-" + name).removeAttribute("aria-invalid");
  }
}

/** The error an answer carries, at the field it names when the form has one. */
function showError(body, status) {
  const error = (body && body.error) || { code: "HTTP_" + status, message: "The server answered " + status + "." };
  const field = FIELDS.find((name) => error.field === name);
  if (field) {
    $("f-" + field + "-error").textContent = error.message;
    $("f-" + field).setAttribute("aria-invalid", "true");
    $("f-" + field).focus();
  }
  $("form-error").textContent = error.code + ": " + error.message;
}

function input() {
  const body = { url: $("f-url").value.trim(), redirectStatus: Number($("f-redirectStatus").value) };
  if ($("f-customSlug").value.trim()) body.customSlug = $("f-customSlug").value.trim();
  if ($("f-validUntil").value) body.validUntil = new Date(Date.now() + Number($("f-validUntil").value) * 1000).toISOString();
  if ($("f-maxVisits").value !== "") body.maxVisits = Number($("f-maxVisits").value);
  if ($("f-forwardQuery").checked) body.forwardQuery = true;
  return body;
}

async function make(event) {
  event.preventDefault();
  clearErrors();
  $("create").disabled = true;
  try {
    const response = await fetch("/v1/short-url/create", {
      method: "POST",
      headers: Object.assign({ "Content-Type": "application/json" }, keyHeaders()),
      body: JSON.stringify(input()),
    });
    const body = await response.json().catch(() => null);
    if (!response.ok || !body || !body.success) {
      showError(body, response.status);
      document.title = "Short links (" + response.status + ") · wrench";
      return;
    }
    const link = body.data;
    $("short").textContent = link.shortUrl;
    $("short").href = link.shortUrl;
    $("target").textContent = link.url;
    $("token").textContent = link.manageToken || "(none)";
    $("stats-link").href = "/tools/short-links/" + encodeURIComponent(link.slug);
    $("made").hidden = false;
    $("copy-short").onclick = () => copy(link.shortUrl, $("copy-short"));
    showQr(link.slug);
    document.title = "Short links (200) · wrench";
  } catch (e) {
    $("form-error").textContent = "The call failed: " + e.message;
  } finally {
    $("create").disabled = false;
  }
}

/** The link's QR code, fetched with the key (an image source could not carry it). */
async function showQr(slug) {
  const response = await fetch("/v1/short-url/" + encodeURIComponent(slug) + "/qr?format=svg&size=200", { headers: keyHeaders() });
  if (!response.ok) return;
  $("qr").src = URL.createObjectURL(await response.blob());
  $("qr").hidden = false;
}

async function copy(text, button) {
  try {
    await navigator.clipboard.writeText(text);
    button.textContent = "Copied";
  } catch (_) {
    button.textContent = "Select it to copy";
  }
}

function fact(list, term, value) {
  list.append(el("dt", term), el("dd", value === null || value === undefined ? "—" : String(value)));
}

function row(cells) {
  const tr = document.createElement("tr");
  for (const cell of cells) {
    const td = document.createElement("td");
    if (cell instanceof Node) td.append(cell);
    else td.textContent = cell === null || cell === undefined ? "—" : String(cell);
    tr.append(td);
  }
  return tr;
}

async function stats(slug) {
  $("status").textContent = "Loading…";
  const query = new URLSearchParams({ interval: $("interval").value, visits: "50" });
  const response = await fetch("/v1/short-url/" + encodeURIComponent(slug) + "/stats?" + query, { headers: keyHeaders() });
  const body = await response.json().catch(() => null);
  if (!response.ok || !body || !body.success) {
    const error = (body && body.error) || { code: "HTTP_" + response.status, message: "The server answered " + response.status + "." };
    $("name").textContent = response.status === 404 ? "No such short link" : "This link's statistics could not load";
    $("status").textContent = error.code + ": " + error.message;
    $("stats").hidden = true;
    document.title = (response.status === 404 ? "Not found" : "Error") + " · wrench";
    return;
  }
  const s = body.data;
  $("status").textContent = "";
  const facts = $("facts");
  facts.replaceChildren();
  const target = /^https?:\/\//i.test(s.url) ? Object.assign(el("a", s.url), { href: s.url }) : el("span", s.url);
  facts.append(el("dt", "Leads to"), Object.assign(document.createElement("dd"), { className: "wrap" }));
  facts.lastChild.append(target);
  fact(facts, "Short URL", s.shortUrl);
  fact(facts, "Clicks", s.clicks);
  fact(facts, "Made", s.createdAt);
  fact(facts, "Last click", s.lastClickAt);
  fact(facts, "Redirects from", s.validSince);
  fact(facts, "Redirects until", s.validUntil);
  fact(facts, "Visits left", s.visitsLeft === null ? "no limit" : s.visitsLeft);
  if (s.tags.length) fact(facts, "Tags", s.tags.join(", "));
  $("counts").textContent =
    s.visits.total + " visits (" + s.visits.unique + " unique, " + s.visits.bots + " by bots) from " + s.range.from + " to " + s.range.to + ".";

  const shown = s.series.slice(-SERIES_ROWS).reverse();
  const most = Math.max(1, ...shown.map((b) => b.total));
  $("series-caption").textContent =
    shown.length < s.series.length ? "The newest " + shown.length + " of " + s.series.length + " buckets, newest first." : "Newest first.";
  $("series").replaceChildren(
    ...shown.map((b) => {
      const meter = document.createElement("meter");
      meter.min = 0;
      meter.max = most;
      meter.value = b.total;
      meter.setAttribute("aria-label", b.total + " visits");
      return row([b.start, b.total, b.unique, b.bots, meter]);
    }),
  );

  $("top-days").textContent = "Whole UTC days from " + s.top.daysFrom + " to " + s.top.daysTo + ".";
  const lists = [
    ["Referrers", s.top.referrers],
    ["Countries", s.top.countries],
    ["Browsers", s.top.browsers],
    ["Systems", s.top.operatingSystems],
    ["Devices", s.top.devices],
  ];
  $("top").replaceChildren(
    ...lists.map(([title, entries]) => {
      const box = el("section", null, "top-list");
      box.append(el("h3", title));
      const list = document.createElement("ol");
      for (const e of entries) list.append(el("li", e.value + ": " + e.visits));
      box.append(entries.length ? list : el("p", "None yet.", "status"));
      return box;
    }),
  );
  $("visits").replaceChildren(
    ...s.recentVisits.map((v) => row([v.number, v.at, v.referrer, v.country, v.browser + (v.bot ? " (bot)" : ""), v.os, v.device])),
  );
  $("stats").hidden = false;
  document.title = "Short link " + slug + " · wrench";
}

document.addEventListener("DOMContentLoaded", () => {
  const slug = decodeURIComponent(location.pathname.replace(/^\/tools\/short-links\/?/, "").replace(/\/$/, ""));
  if (!slug) {
    $("maker").hidden = false;
    $("maker").addEventListener("submit", (e) => make(e).catch((err) => window.pageErrors.push(String(err))));
    document.title = "Short links · wrench";
    return;
  }
  $("name").textContent = "Short link " + slug;
  const load = () => stats(slug).catch((e) => window.pageErrors.push(String(e)));
  $("refresh").addEventListener("click", load);
  $("interval").addEventListener("change", load);
  load();
});
