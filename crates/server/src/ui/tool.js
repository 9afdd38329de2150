// A tool page (`/tools/{operationId}`): a form generated from the operation's input schema in
// the catalog (GET /v1/operations/{operationId}), prefilled from its first example, and its
// answer shown as it reads best: text with a copy button, JSON as a tree, images inline, other
// bytes as a hex view, each with a download. Everything shown is written as text, never as
// markup. Inputs can be carried in the URL's fragment (`#input=`), which browsers never send.
"use strict";

/** Most nodes a JSON tree shows; the rest is summarised. */
const TREE_NODES = 3000;
/** Most bytes a hex view shows. */
const HEX_BYTES = 4096;
/** Where a raw body is kept among the inputs (in a link's fragment too). */
const RAW = wrenchSnippets.RAW;

const page = { entry: null, root: {}, fields: [], raw: false, lastUrls: [] };

/** A schema with its `$ref` followed (into the entry's own `$defs`) and null unions unwrapped. */
function resolve(schema) {
  let s = Object.assign({}, schema || {});
  const seen = new Set();
  while (s.$ref && !seen.has(s.$ref)) {
    seen.add(s.$ref);
    const target = (page.root.$defs || {})[s.$ref.replace(/^#\/\$defs\//, "")] || {};
    const outer = s;
    s = Object.assign({}, target, outer);
    delete s.$ref;
    if (target.$ref) s.$ref = target.$ref;
  }
  const options = s.anyOf || s.oneOf;
  if (Array.isArray(options)) {
    const values = options.filter((o) => o.const !== undefined || (o.enum && o.enum.length === 1));
    if (values.length === options.length && values.length) {
      s.enum = values.map((o) => (o.const !== undefined ? o.const : o.enum[0]));
    } else {
      const real = options.filter((o) => o.type !== "null");
      if (real.length === 1) {
        const inner = resolve(real[0]);
        s = Object.assign({}, inner, { description: s.description || inner.description, default: s.default });
      }
    }
  }
  if (Array.isArray(s.type)) {
    const real = s.type.filter((t) => t !== "null");
    s.type = real.length === 1 ? real[0] : real;
  }
  return s;
}

/** How a field is edited. */
function kindOf(s) {
  if (Array.isArray(s.enum) && s.enum.every((v) => typeof v === "string")) return "enum";
  if (s.type === "boolean") return "boolean";
  if (s.type === "integer" || s.type === "number") return "number";
  if (s.type === "string") return "string";
  // Text or a JSON value (a key as PEM text or as a JWK object): JSON when it reads as an
  // object or array, else the text itself.
  const options = (s.anyOf || s.oneOf || []).map(resolve);
  if (options.some((o) => o.type === "string")) return "text-or-json";
  return "json";
}

function buildField(name, schema, required, siblings) {
  const s = resolve(schema);
  const kind = kindOf(s);
  const id = "f-" + name;
  const box = el("div", null, "field");
  const label = el("label", name + (required ? "" : " (optional)"));
  label.htmlFor = id;
  box.append(label);
  if (s.description) {
    const hint = el("p", s.description, "hint");
    hint.id = id + "-hint";
    box.append(hint);
  }
  let input;
  if (kind === "enum") {
    input = el("select");
    if (!required) input.append(new Option(s.default !== undefined && s.default !== null ? "default (" + s.default + ")" : "—", ""));
    for (const v of s.enum) input.append(new Option(v, v));
  } else if (kind === "boolean") {
    input = el("select");
    input.append(new Option(s.default !== undefined && s.default !== null ? "default (" + s.default + ")" : "—", ""));
    input.append(new Option("true", "true"), new Option("false", "false"));
  } else if (kind === "number") {
    input = el("input");
    input.type = "number";
    if (s.minimum !== undefined) input.min = s.minimum;
    if (s.maximum !== undefined) input.max = s.maximum;
    input.step = s.type === "integer" ? "1" : "any";
    if (s.default !== undefined && s.default !== null) input.placeholder = "default " + s.default;
  } else if (kind === "string" && s.maxLength !== undefined && s.maxLength <= 256) {
    input = el("input");
    input.type = "text";
    input.maxLength = s.maxLength;
    input.spellcheck = false;
    if (s.default !== undefined && s.default !== null) input.placeholder = "default " + s.default;
  } else {
    input = el("textarea");
    input.rows = kind === "json" ? 4 : 5;
    input.spellcheck = false;
    if (kind === "json") input.placeholder = "JSON";
    if (kind === "text-or-json") input.placeholder = "Text, or a JSON object";
  }
  input.id = id;
  input.name = name;
  if (s.description) input.setAttribute("aria-describedby", id + "-hint " + id + "-error");
  box.append(input);
  // Bytes: a file is read and given as Base64, with the field's encoding set to say so.
  if (kind === "string" && siblings.includes("inputEncoding") && name !== "inputEncoding" && input.tagName === "TEXTAREA") {
    const file = el("input");
    file.type = "file";
    file.setAttribute("aria-label", "Read " + name + " from a file");
    file.addEventListener("change", async () => {
      const chosen = file.files && file.files[0];
      if (!chosen) return;
      const bytes = new Uint8Array(await chosen.arrayBuffer());
      let binary = "";
      for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
      input.value = btoa(binary);
      const encoding = $("f-inputEncoding");
      if (encoding) encoding.value = "base64";
    });
    box.append(file);
  }
  const error = el("p", "", "field-error");
  error.id = id + "-error";
  box.append(error);
  page.fields.push({ name, kind, schema: s, required, input, error });
  return box;
}

function buildForm() {
  const fields = $("fields");
  const schema = page.entry.inputSchema;
  if (!schema) {
    for (const m of page.entry.path.matchAll(/\{([^}]+)\}/g)) {
      fields.append(buildField(m[1], { type: "string", maxLength: 256, description: "In the path." }, true, []));
    }
    // An operation that takes nothing but its path has no more fields.
    if (page.entry.inputKind !== "raw") return;
    page.raw = true;
    const box = el("div", null, "field");
    const label = el("label", "Request body");
    label.htmlFor = "f-body";
    const input = el("textarea");
    input.id = "f-body";
    input.rows = 8;
    box.append(label, input);
    fields.append(box);
    page.fields.push({ name: RAW, kind: "raw", schema: {}, required: false, input, error: el("p") });
    return;
  }
  page.root = schema;
  const required = schema.required || [];
  const names = Object.keys(schema.properties || {});
  // Path parameters the body's schema leaves out (the document declares them apart).
  const inPath = [...page.entry.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).filter((n) => !names.includes(n));
  for (const name of inPath) {
    fields.append(buildField(name, { type: "string", maxLength: 256, description: "In the path." }, true, names));
  }
  for (const name of names) fields.append(buildField(name, schema.properties[name], required.includes(name), names));
}

function fill(values) {
  for (const f of page.fields) {
    const v = values ? values[f.name] : undefined;
    if (f.kind === "raw") {
      // A raw body kept in a link, or an example's fields other than the path's, as JSON.
      const given = values || {};
      const rest = Object.entries(given).filter(([k]) => k !== RAW && !page.fields.some((g) => g.name === k));
      f.input.value = typeof given[RAW] === "string" ? given[RAW] : rest.length ? JSON.stringify(Object.fromEntries(rest), null, 2) : "";
    } else if (v === undefined || v === null) f.input.value = "";
    else if (f.kind === "json" || (f.kind === "text-or-json" && typeof v !== "string")) f.input.value = JSON.stringify(v, null, 2);
    else f.input.value = String(v);
  }
}

/** The input the form holds, or null (with the faults shown at their fields). */
function collect() {
  const input = {};
  let ok = true;
  for (const f of page.fields) {
    f.error.textContent = "";
    f.input.removeAttribute("aria-invalid");
    const text = f.input.value;
    if (f.kind === "raw") {
      input[RAW] = text;
      continue;
    }
    // An empty field is left out, but a required text is sent empty (it may be the input).
    if (text === "" && !(f.required && f.kind === "string")) continue;
    try {
      if (f.kind === "number") {
        const n = Number(text);
        if (!Number.isFinite(n)) throw new Error("is not a number");
        input[f.name] = n;
      } else if (f.kind === "boolean") input[f.name] = text === "true";
      else if (f.kind === "json") input[f.name] = JSON.parse(text);
      else if (f.kind === "text-or-json") input[f.name] = /^\s*[[{]/.test(text) ? JSON.parse(text) : text;
      else input[f.name] = text;
    } catch (e) {
      f.error.textContent = f.name + ": " + (f.kind.includes("json") ? "not valid JSON (" + e.message + ")" : e.message);
      f.input.setAttribute("aria-invalid", "true");
      ok = false;
    }
  }
  return ok ? input : null;
}

/** The request for `input`: its URL (path parameters filled, a query) and init (a JSON or raw body). */
function request(input) {
  const e = page.entry;
  const p = wrenchSnippets.parts(e, input);
  let url = e.path.replace(/\{([^}]+)\}/g, (_, n) => encodeURIComponent(p.path[n]));
  // A redirect is shown as one, not followed to wherever it leads.
  const init = { method: e.method, headers: keyHeaders(), redirect: "manual" };
  if (p.raw !== null) {
    init.body = p.raw;
    init.headers["Content-Type"] = p.rawType;
  } else if (p.body) {
    init.body = JSON.stringify(p.body);
    init.headers["Content-Type"] = "application/json";
  } else if (p.query) {
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(p.query)) query.append(k, typeof v === "object" ? JSON.stringify(v) : String(v));
    url += "?" + query.toString();
  }
  return { url, init };
}

function copyButton(text, what) {
  const button = el("button", "Copy " + what, "copy");
  button.type = "button";
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(text);
      $("copied").textContent = "Copied " + what + ".";
    } catch (e) {
      $("copied").textContent = "The browser refused to copy: " + e.message;
    }
  });
  return button;
}

function download(blob, name) {
  const url = URL.createObjectURL(blob);
  page.lastUrls.push(url);
  const a = el("a", "Download", "download");
  a.href = url;
  a.download = name;
  return a;
}

/** A JSON value as a tree of details elements, built as text. */
function tree(value, budget) {
  const node = (key, v) => {
    if (budget.left-- <= 0) return el("div", "…");
    if (v !== null && typeof v === "object") {
      const entries = Array.isArray(v) ? v.map((x, i) => [String(i), x]) : Object.entries(v);
      const d = el("details");
      d.open = budget.depth < 2;
      const summary = el("summary");
      if (key !== null) summary.append(el("span", key, "k"), document.createTextNode(": "));
      summary.append(document.createTextNode(Array.isArray(v) ? "[" + entries.length + "]" : "{" + entries.length + "}"));
      d.append(summary);
      budget.depth++;
      for (const [k, x] of entries) d.append(node(k, x));
      budget.depth--;
      return d;
    }
    const line = el("div");
    if (key !== null) line.append(el("span", key, "k"), document.createTextNode(": "));
    line.append(document.createTextNode(JSON.stringify(v)));
    return line;
  };
  const box = el("div", null, "tree");
  box.append(node(null, value));
  return box;
}

function showError(error, body) {
  body.append(el("p", error.code + ": " + error.message, "bad-answer"));
  if (!error.field) return;
  const head = String(error.field).split(/[.[]/)[0];
  const field = page.fields.find((f) => f.name === head);
  if (field) {
    field.error.textContent = error.message;
    field.input.setAttribute("aria-invalid", "true");
    field.input.focus();
  }
}

function showData(data, body) {
  if (data !== null && typeof data === "object" && !Array.isArray(data)) {
    for (const [k, v] of Object.entries(data)) {
      if (typeof v !== "string") continue;
      const block = el("div", null, "value");
      block.append(el("h3", k), el("pre", v), copyButton(v, k));
      body.append(block);
    }
  }
  const whole = el("div", null, "value");
  whole.append(el("h3", "data"), tree(data, { left: TREE_NODES, depth: 0 }), copyButton(JSON.stringify(data, null, 2), "as JSON"));
  body.append(whole);
}

function hexView(bytes) {
  const lines = [];
  for (let i = 0; i < Math.min(bytes.length, HEX_BYTES); i += 16) {
    const row = bytes.subarray(i, i + 16);
    const hex = [...row].map((b) => b.toString(16).padStart(2, "0")).join(" ");
    const text = [...row].map((b) => (b >= 32 && b < 127 ? String.fromCharCode(b) : ".")).join("");
    lines.push(i.toString(16).padStart(8, "0") + "  " + hex.padEnd(48) + "  " + text);
  }
  if (bytes.length > HEX_BYTES) lines.push("… " + (bytes.length - HEX_BYTES) + " more bytes");
  return el("pre", lines.join("\n"));
}

async function show(response) {
  for (const url of page.lastUrls.splice(0)) URL.revokeObjectURL(url);
  const body = $("answer-body");
  body.replaceChildren();
  $("answer").hidden = false;
  $("answer-title").textContent = "Answer: " + response.status + (response.statusText ? " " + response.statusText : "");
  if (response.type === "opaqueredirect") {
    $("answer-title").textContent = "Answer: a redirect";
    body.append(el("p", "The answer is a redirect; a page is not told where it leads. Copy as curl to see its Location."));
    return "redirect";
  }
  const type = (response.headers.get("content-type") || "").toLowerCase();
  const name = page.entry.operationId;
  if (type.includes("json")) {
    const text = await response.text();
    let v;
    try {
      v = JSON.parse(text);
    } catch (_) {
      body.append(el("pre", text));
      return;
    }
    if (v && v.success === false && v.error) showError(v.error, body);
    else if (v && v.success === true) showData(v.data, body);
    else showData(v, body);
    return;
  }
  const blob = await response.blob();
  if (type.startsWith("image/")) {
    const img = el("img", null, "shown-image");
    const url = URL.createObjectURL(blob);
    page.lastUrls.push(url);
    img.src = url;
    img.alt = "The image " + name + " answered";
    body.append(img, el("p", type + ", " + blob.size + " bytes", "status"), download(blob, name + "." + (type.includes("svg") ? "svg" : type.split("/")[1].split(";")[0])));
    return;
  }
  const bytes = new Uint8Array(await blob.arrayBuffer());
  let text = null;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch (_) {
    text = null;
  }
  if (text !== null && !/[\u0000-\u0008\u000e-\u001f]/.test(text)) {
    body.append(el("pre", text), copyButton(text, "the text"));
  } else {
    body.append(el("p", (type || "bytes") + ", " + bytes.length + " bytes", "status"), hexView(bytes));
  }
  body.append(download(blob, name + ".bin"));
}

/** The fragment that restores `input`: `#input=` and its JSON as unpadded Base64url. */
function fragmentOf(input) {
  const utf8 = new TextEncoder().encode(JSON.stringify(input));
  let binary = "";
  for (const b of utf8) binary += String.fromCharCode(b);
  return "#input=" + btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function inputFromFragment() {
  const m = /^#input=([A-Za-z0-9_-]*)$/.exec(location.hash);
  if (!m) return null;
  try {
    const binary = atob(m[1].replace(/-/g, "+").replace(/_/g, "/"));
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    const value = JSON.parse(new TextDecoder().decode(bytes));
    return value && typeof value === "object" && !Array.isArray(value) ? value : null;
  } catch (_) {
    return null;
  }
}

/** A shell word: in single quotes, with each single quote written as '\''. */
function shellQuote(text) {
  return "'" + text.replace(/'/g, "'\\''") + "'";
}

/** Where snippets send their calls, and whether they carry a key (read from the environment). */
function snippetOptions() {
  return { origin: location.origin, keyed: "X-API-Key" in keyHeaders() };
}

function curlOf(input) {
  const { url, init } = request(input);
  const parts = ["curl", "-s", "-X", init.method, shellQuote(location.origin + url)];
  if (init.headers["X-API-Key"]) parts.push("-H", "\"X-API-Key: $WRENCH_API_KEY\"");
  if (init.body !== undefined) parts.push("-H", shellQuote("Content-Type: " + init.headers["Content-Type"]), "--data-binary", shellQuote(init.body));
  return parts.join(" ");
}

async function run(event) {
  event.preventDefault();
  $("form-error").textContent = "";
  const input = collect();
  if (!input) {
    $("form-error").textContent = "Some fields need fixing.";
    return;
  }
  const { url, init } = request(input);
  $("run").disabled = true;
  try {
    const response = await fetch(url, init);
    const shown = await show(response);
    document.title = page.entry.operationId + " (" + (shown || response.status) + ") · wrench";
  } catch (e) {
    $("form-error").textContent = "The call failed: " + e.message;
    document.title = page.entry.operationId + " (failed) · wrench";
  } finally {
    $("run").disabled = false;
  }
}

async function load() {
  const id = decodeURIComponent(location.pathname.replace(/^\/tools\//, "").replace(/\/$/, ""));
  const response = await fetch("/v1/operations/" + encodeURIComponent(id), { headers: keyHeaders() });
  const body = await response.json();
  if (!body.success) {
    const missing = response.status === 404;
    $("name").textContent = missing ? "No such operation" : "This operation could not be loaded";
    $("summary").textContent = body.error.message;
    $("form").hidden = true;
    $("about").hidden = true;
    document.title = (missing ? "Not found" : "Error") + " · wrench";
    return;
  }
  const e = (page.entry = body.data);
  $("name").textContent = e.operationId;
  $("route").textContent = e.method + " " + e.path;
  $("summary").textContent = e.summary;
  $("description").textContent = e.description || "No more to say.";
  $("docs-link").href = docsLink(e);
  buildForm();
  const examples = e.examples || [];
  const chooser = $("example");
  chooser.append(new Option("Fill with an example…", ""));
  examples.forEach((x, i) => chooser.append(new Option(x.name + (x.status !== 200 ? " (" + x.status + ")" : ""), String(i))));
  chooser.hidden = !examples.length;
  chooser.addEventListener("change", () => {
    if (chooser.value !== "") fill(examples[Number(chooser.value)].input);
  });
  const first = examples.find((x) => x.status === 200) || examples[0];
  fill(inputFromFragment() || (first ? first.input : {}));
  $("form").addEventListener("submit", run);
  $("share").addEventListener("click", async () => {
    const input = collect();
    if (!input) return;
    history.replaceState(null, "", fragmentOf(input));
    try {
      await navigator.clipboard.writeText(location.href);
      $("copied").textContent = "Copied a link to these inputs.";
    } catch (_) {
      $("copied").textContent = "The link is in the address bar.";
    }
  });
  // The inputs as code: shown below the buttons, and copied when the browser allows.
  const code = {
    curl: ["curl command", curlOf],
    python: ["Python call (wrench_client, generated from the document)", (input) => wrenchSnippets.python(e, input, snippetOptions())],
    typescript: ["TypeScript call (openapi-fetch, typed from the document)", (input) => wrenchSnippets.typescript(e, input, snippetOptions())],
  };
  for (const [button, [what, write]] of Object.entries(code)) {
    $(button).addEventListener("click", async () => {
      const input = collect();
      if (!input) return;
      const text = write(input);
      $("code-title").textContent = "The " + what;
      $("code-text").textContent = text;
      $("code").hidden = false;
      try {
        await navigator.clipboard.writeText(text);
        $("copied").textContent = "Copied the " + what.split(" (")[0] + "; it is shown below.";
      } catch (_) {
        $("copied").textContent = "The " + what.split(" (")[0] + " is shown below, to copy.";
      }
    });
  }
  document.title = e.operationId + " · wrench";
}

document.addEventListener("DOMContentLoaded", () => {
  load().catch((e) => {
    window.pageErrors.push(String(e));
    $("name").textContent = "This page could not load: " + e.message;
  });
});
