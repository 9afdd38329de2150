// The paste page. At /p/{id} it shows a paste: it asks with HEAD first, which spends no view,
// so a paste with a view limit is opened only once the reader confirms; an encrypted paste is
// opened here with the key after "#" in the URL, which the browser never sends. At /p/ it is
// a form that makes a paste, encrypting it here first when asked. The encrypted format is
// AES-256-GCM with a 32-byte key; the content is unpadded Base64url of the 12-byte IV, the
// ciphertext and the 16-byte tag. Everything from a paste is written with textContent. Calls
// carry the API key kept in this browser, if any (`keyHeaders`, from /ui/common.js).
"use strict";

const id = decodeURIComponent(location.pathname.split("/").filter(Boolean)[1] || "");

function setStatus(text, title) {
  $("status").textContent = text;
  if (title) document.title = title;
}

function toBase64url(bytes) {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64url(text) {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new Error("not Base64url");
  let s = text.replace(/-/g, "+").replace(/_/g, "/");
  while (s.length % 4) s += "=";
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

async function seal(text) {
  const key = crypto.getRandomValues(new Uint8Array(32));
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const k = await crypto.subtle.importKey("raw", key, "AES-GCM", false, ["encrypt"]);
  const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv }, k, new TextEncoder().encode(text)));
  const out = new Uint8Array(iv.length + sealed.length);
  out.set(iv);
  out.set(sealed, iv.length);
  return { content: toBase64url(out), key: toBase64url(key) };
}

async function unseal(content, key) {
  const bytes = fromBase64url(content);
  const raw = fromBase64url(key);
  if (raw.length !== 32 || bytes.length < 28) throw new Error("malformed");
  const k = await crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["decrypt"]);
  const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: bytes.subarray(0, 12) }, k, bytes.subarray(12));
  return new TextDecoder("utf-8", { fatal: true }).decode(plain);
}

function plural(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function gone() {
  setStatus("No such paste: it never existed, has expired, was read its last time or was deleted.", "Paste gone · wrench");
}

function render(text, viewsLeft, encrypted) {
  const lines = text.split("\n");
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  $("gutter").textContent = lines.map((_, i) => i + 1).join("\n");
  $("content").textContent = lines.join("\n");
  $("confirm").hidden = true;
  $("shown").hidden = false;
  $("copy").onclick = () => copy(text, $("copy"));
  if (!encrypted && viewsLeft === null) {
    $("raw").href = `/v1/paste/${encodeURIComponent(id)}/raw`;
    $("raw").hidden = false;
  }
  const after = viewsLeft === null ? "" : viewsLeft === 0 ? " This was its last view: it is gone from the server." : ` ${plural(viewsLeft, "view")} left.`;
  setStatus((encrypted ? "Decrypted in this browser." : "") + after, "Paste · wrench");
}

async function open(encrypted) {
  const res = await fetch(`/v1/paste/${encodeURIComponent(id)}`, { cache: "no-store", headers: keyHeaders() });
  if (res.status === 404) return gone();
  if (!res.ok) return setStatus(`The server answered ${res.status}.`, "Paste failed · wrench");
  const paste = (await res.json()).data;
  let text = paste.content;
  if (paste.encrypted || encrypted) {
    const key = location.hash.slice(1);
    if (!key) return setStatus("This paste is encrypted and this link has no key (the part after #).", "Paste locked · wrench");
    try {
      text = await unseal(paste.content, key);
    } catch (e) {
      return setStatus("The key in this link does not open this paste.", "Paste locked · wrench");
    }
  }
  render(text, paste.viewsLeft, paste.encrypted);
}

async function view() {
  $("paste-id").textContent = id;
  $("viewer").hidden = false;
  const head = await fetch(`/v1/paste/${encodeURIComponent(id)}/raw`, { method: "HEAD", cache: "no-store", headers: keyHeaders() });
  if (head.status === 404) return gone();
  if (!head.ok) return setStatus(`The server answered ${head.status}.`, "Paste failed · wrench");
  const h = (name) => head.headers.get(name);
  const encrypted = h("x-paste-encrypted") === "true";
  const left = h("x-paste-views-left");
  $("facts").textContent = [
    h("x-paste-language"),
    plural(Number(h("x-paste-size")), "byte"),
    encrypted ? "encrypted" : "",
    `expires ${new Date(h("x-paste-expires-at")).toLocaleString()}`,
  ].filter(Boolean).join(" · ");
  if (encrypted && !location.hash.slice(1)) {
    // Nothing is spent on a link that could not open the paste anyway.
    return setStatus("This paste is encrypted and this link has no key (the part after #).", "Paste locked · wrench");
  }
  if (left === null) return open(encrypted);
  const n = Number(left);
  $("confirm-text").textContent = n === 1
    ? "This paste can be opened once: opening it deletes it from the server."
    : `This paste can be opened ${n} more times; opening it spends one.`;
  $("confirm").hidden = false;
  $("reveal").onclick = () => {
    $("reveal").disabled = true;
    open(encrypted);
  };
  setStatus("", "Paste (confirm) · wrench");
}

async function copy(text, button) {
  try {
    await navigator.clipboard.writeText(text);
    button.textContent = "Copied";
  } catch (e) {
    button.textContent = "Copy failed";
  }
}

async function make(event) {
  event.preventDefault();
  const text = $("text").value;
  const body = { content: text, language: $("language").value || "text", ttl: Number($("ttl").value) };
  if ($("max-views").value) body.maxViews = Number($("max-views").value);
  let key = "";
  if ($("encrypt").checked) {
    if (!window.crypto || !crypto.subtle) return setStatus("Encrypting needs a secure page (HTTPS or localhost).");
    const sealed = await seal(text);
    body.content = sealed.content;
    body.encrypted = true;
    key = sealed.key;
  }
  $("create").disabled = true;
  const res = await fetch("/v1/paste/create", {
    method: "POST",
    headers: Object.assign({ "Content-Type": "application/json" }, keyHeaders()),
    body: JSON.stringify(body),
  });
  const answer = await res.json().catch(() => ({}));
  $("create").disabled = false;
  if (!res.ok) return setStatus((answer.error && answer.error.message) || `The server answered ${res.status}.`);
  const paste = answer.data;
  const link = paste.viewUrl + (key ? "#" + key : "");
  $("link").href = link;
  $("link").textContent = link;
  $("key-note").hidden = !key;
  $("delete-token").textContent = paste.deleteToken;
  $("copy-link").onclick = () => copy(link, $("copy-link"));
  $("made").hidden = false;
  setStatus("", "Paste created · wrench");
}

if (id) {
  // A key typed or pasted after "#" changes no page: start again with it.
  window.addEventListener("hashchange", () => location.reload());
  view().catch((e) => setStatus(`Could not load the paste: ${e.message}`, "Paste failed · wrench"));
} else {
  $("maker").hidden = false;
  $("maker").addEventListener("submit", make);
  setStatus("New paste", "New paste · wrench");
}
