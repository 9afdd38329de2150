// The home page: every operation of the catalog (GET /v1/operations), grouped by the
// document's tags, filtered as one types. Everything shown is written as text (textContent),
// never as markup.
"use strict";

/** The words an operation is found by, in lower case. */
function searchable(op) {
  const examples = (op.examples || []).map((x) => x.name + " " + JSON.stringify(x.input));
  return [op.operationId, op.summary, op.description, op.tag, op.method, op.path,
    (op.routes || []).map((r) => r.path + " " + r.operationId).join(" "), examples.join(" ")]
    .join(" ").toLowerCase();
}

function card(op) {
  const item = el("li", null, "op");
  item.dataset.operationId = op.operationId;
  const title = el("h3");
  const link = el("a", op.operationId);
  link.href = "/tools/" + encodeURIComponent(op.operationId);
  title.append(link);
  item.append(title, el("p", op.method + " " + op.path, "route"), el("p", op.summary));
  const more = el("details");
  more.append(el("summary", "Details and examples"));
  if (op.description) more.append(el("p", op.description));
  for (const example of (op.examples || []).slice(0, 3)) {
    more.append(el("p", "Example: " + example.name + (example.status !== 200 ? " (" + example.status + ")" : "")));
    more.append(el("pre", JSON.stringify(example.input, null, 2)));
  }
  if ((op.errorCodes || []).length) more.append(el("p", "Errors: " + op.errorCodes.join(", "), "about"));
  const reference = el("a", "In the API reference");
  reference.href = docsLink(op);
  more.append(reference);
  item.append(more);
  return item;
}

const state = { ops: [], tags: [], words: new Map(), tag: null };

function render() {
  const query = $("q").value.trim().toLowerCase();
  const terms = query.split(/\s+/).filter(Boolean);
  const results = $("results");
  results.replaceChildren();
  let shown = 0;
  for (const tag of state.tags) {
    if (state.tag && state.tag !== tag.name) continue;
    const matching = state.ops.filter((op) => op.tag === tag.name &&
      terms.every((t) => state.words.get(op.operationId).includes(t)));
    if (!matching.length) continue;
    // Operations whose name or summary holds the words come first.
    const strong = (op) => terms.every((t) => (op.operationId + " " + op.summary).toLowerCase().includes(t));
    matching.sort((a, b) => Number(strong(b)) - Number(strong(a)));
    const section = el("section");
    section.setAttribute("aria-label", tag.name);
    section.append(el("h2", tag.name), el("p", tag.description, "about"));
    const list = el("ul", null, "ops");
    for (const op of matching) list.append(card(op));
    section.append(list);
    results.append(section);
    shown += matching.length;
  }
  const total = state.ops.length;
  $("count").textContent = shown === total ? total + " operations"
    : shown === 0 ? "No operation matches “" + $("q").value.trim() + "”."
    : shown + " of " + total + " operations";
}

function tagFilters() {
  const box = $("tag-filters");
  const present = state.tags.filter((t) => state.ops.some((op) => op.tag === t.name));
  for (const tag of [{ name: null, label: "All" }, ...present.map((t) => ({ name: t.name, label: t.name }))]) {
    const button = el("button", tag.label);
    button.type = "button";
    button.setAttribute("aria-pressed", String(state.tag === tag.name));
    button.addEventListener("click", () => {
      state.tag = tag.name;
      for (const b of box.children) b.setAttribute("aria-pressed", String(b === button));
      render();
    });
    box.append(button);
  }
}

async function load() {
  state.tags = JSON.parse($("tags").textContent);
  const response = await fetch("/v1/operations", { headers: keyHeaders() });
  const body = await response.json();
  if (!body.success) {
    $("count").textContent = "The operations could not be listed: " + body.error.message;
    document.title = "Error · wrench";
    return;
  }
  state.ops = body.data.operations;
  for (const op of state.ops) state.words.set(op.operationId, searchable(op));
  tagFilters();
  render();
  document.title = "wrench · " + state.ops.length + " operations";
}

function keyForm() {
  const say = () => {
    $("key-state").textContent = localStorage.getItem(KEY_STORAGE) ? "A key is kept in this browser." : "No key is kept.";
  };
  $("key-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const key = $("key").value.trim();
    if (key) localStorage.setItem(KEY_STORAGE, key);
    $("key").value = "";
    say();
  });
  $("key-forget").addEventListener("click", () => {
    localStorage.removeItem(KEY_STORAGE);
    say();
  });
  say();
}

document.addEventListener("DOMContentLoaded", () => {
  $("finder").addEventListener("submit", (e) => e.preventDefault());
  $("q").addEventListener("input", render);
  // `/` finds, as on most sites with a search field; Escape clears it.
  document.addEventListener("keydown", (e) => {
    if (e.key === "/" && document.activeElement !== $("q") && !(e.target instanceof HTMLInputElement)) {
      e.preventDefault();
      $("q").focus();
    } else if (e.key === "Escape" && document.activeElement === $("q")) {
      $("q").value = "";
      render();
    }
  });
  keyForm();
  load().catch((e) => {
    window.pageErrors.push(String(e));
    $("count").textContent = "The operations could not be listed: " + e;
  });
});
