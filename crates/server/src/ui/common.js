// What the pages' scripts share, loaded before each of them: their own errors kept in
// `window.pageErrors` (the tests read it), elements built as text, the kept API key, and the
// link to an operation in the API reference.
"use strict";

window.pageErrors = [];
window.addEventListener("error", (e) => window.pageErrors.push(String(e.message)));
window.addEventListener("securitypolicyviolation", (e) => window.pageErrors.push("blocked " + e.blockedURI));

/** Where the API key a person keeps in this browser is stored (never in a URL). */
const KEY_STORAGE = "wrench.apiKey";
const $ = (id) => document.getElementById(id);

/** An element with text, built without markup. */
function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = text;
  if (className) node.className = className;
  return node;
}

/** The request headers every call from these pages carries: the kept key, if any. */
function keyHeaders() {
  const key = localStorage.getItem(KEY_STORAGE);
  return key ? { "X-API-Key": key } : {};
}

/** Swagger UI's deep link to an operation (its tag and operationId, spaces as `_`). */
function docsLink(op) {
  return "/docs/#/" + encodeURIComponent(op.tag.replace(/ /g, "_")) + "/" + encodeURIComponent(op.operationId);
}
