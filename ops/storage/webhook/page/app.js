// The inbox page: lists an inbox's deliveries, newest first, and adds new ones from its event
// stream as they arrive. Every value from a delivery is written with textContent, never parsed
// as HTML, and the page's Content-Security-Policy allows only the server's own scripts (this
// file, and /ui/common.js, whose kept API key its calls carry).
"use strict";

const id = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || "");
const api = `/v1/webhook/inbox/${encodeURIComponent(id)}`;
const list = document.getElementById("deliveries");
const statusLine = document.getElementById("status");
let receiveUrl = "";
let lastId = 0;

function setStatus(text) {
  statusLine.textContent = text;
}

// A shell word in single quotes, safe to paste whatever it holds.
function quote(s) {
  return "'" + String(s).replace(/'/g, "'\\''") + "'";
}

function curlOf(p) {
  const target = receiveUrl + (p.path === "/" ? "" : p.path) + (p.queryString ? "?" + p.queryString : "");
  const parts = ["curl", "-X", p.method];
  for (const [name, value] of p.headerList || []) {
    if (["host", "content-length", "connection", "transfer-encoding", "accept-encoding"].includes(name)) continue;
    parts.push("-H", quote(`${name}: ${value}`));
  }
  if (p.size > 0 && p.rawBodyEncoding === "base64") {
    // Bytes that are not text travel through the raw endpoint, exactly.
    const raw = new URL(`${api}/payloads/${encodeURIComponent(p.id)}/raw`, location.href).href;
    return `curl -s ${quote(raw)} | ` + parts.join(" ") + " --data-binary @- " + quote(target);
  }
  if (p.size > 0) {
    const text = p.rawBody !== null && p.rawBody !== undefined ? p.rawBody : JSON.stringify(p.body);
    parts.push("--data-binary", quote(text));
  }
  parts.push(quote(target));
  return parts.join(" ");
}

function bodyText(p) {
  if (p.body !== null && p.body !== undefined) return JSON.stringify(p.body, null, 2);
  if (p.rawBodyEncoding === "base64") return `(${p.size} bytes that are not text; Base64)\n${p.rawBody}`;
  return p.rawBody || "";
}

function render(p) {
  const node = document.getElementById("delivery").content.firstElementChild.cloneNode(true);
  node.dataset.id = p.id;
  node.dataset.arrived = String(Date.now());
  node.querySelector(".method").textContent = p.method;
  node.querySelector(".path").textContent = p.path + (p.queryString ? "?" + p.queryString : "");
  node.querySelector(".time").textContent = p.received_at;
  node.querySelector(".size").textContent = `${p.size} bytes`;
  const verdict = node.querySelector(".verdict");
  if (p.verification) {
    verdict.textContent = p.verification.valid ? `✓ ${p.verification.scheme}` : `✗ ${p.verification.reason}`;
    verdict.classList.add(p.verification.valid ? "valid" : "invalid");
  }
  const rows = node.querySelector("tbody");
  for (const [name, value] of p.headerList || []) {
    const tr = document.createElement("tr");
    const k = document.createElement("td");
    const v = document.createElement("td");
    k.textContent = name;
    v.textContent = value;
    tr.append(k, v);
    rows.append(tr);
  }
  node.querySelector(".body").textContent = bodyText(p);
  node.querySelector(".copy-curl").addEventListener("click", () => copy(curlOf(p)));
  return node;
}

function add(p) {
  const n = Number(p.id);
  if (Number.isFinite(n)) {
    if (n <= lastId) return;
    lastId = n;
  }
  list.prepend(render(p));
  document.getElementById("empty").hidden = true;
  // The count in the title shows in a background tab, as mail readers do.
  document.title = `(${list.children.length}) Webhook inbox · wrench`;
}

async function copy(text) {
  try {
    await navigator.clipboard.writeText(text);
    setStatus("Copied.");
  } catch (e) {
    setStatus("Copying was refused by the browser; select the text instead.");
  }
}

async function json(url) {
  const r = await fetch(url, { headers: Object.assign({ Accept: "application/json" }, keyHeaders()) });
  const body = await r.json();
  if (!r.ok) throw new Error(body && body.error ? body.error.message : `HTTP ${r.status}`);
  return body.data;
}

function listen() {
  const stream = new EventSource(`${api}/stream?lastEventId=${lastId}`);
  stream.addEventListener("open", () => setStatus("Live: new deliveries appear as they arrive."));
  stream.addEventListener("delivery", (e) => add(JSON.parse(e.data)));
  stream.addEventListener("gone", () => {
    setStatus("This inbox was deleted or has expired.");
    stream.close();
  });
  stream.addEventListener("error", () => setStatus("Reconnecting…"));
}

async function start() {
  document.getElementById("inbox-id").textContent = id;
  try {
    const info = await json(api);
    receiveUrl = info.receiveUrl;
    document.getElementById("receive-url").textContent = receiveUrl;
    document.getElementById("copy-receive").addEventListener("click", () => copy(receiveUrl));
    const listed = await json(`${api}/payloads`);
    for (const p of listed.payloads) add(p);
    document.getElementById("empty").hidden = listed.payloads.length > 0;
    document.body.dataset.ready = "1";
    listen();
  } catch (e) {
    setStatus(String(e.message || e));
  }
}

start();
