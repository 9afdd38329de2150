// The recipe page (`/recipes`, and `/recipes/{id}` for a stored one): steps added from the
// catalog's recipeable operations or written as JSON, run with `POST /v1/recipes/run`, each
// step's outcome listed, and the recipe stored and shared with `POST /v1/recipes`. Everything
// shown is written as text, never as markup.
"use strict";

const SAMPLE = { steps: ["base64Decode", { op: "textCase", args: { to: "upper" } }] };

/** The recipe in the editor, or null (with the fault shown). */
function recipe() {
  $("recipe-error").textContent = "";
  $("recipe").removeAttribute("aria-invalid");
  try {
    const value = JSON.parse($("recipe").value);
    if (!value || typeof value !== "object" || Array.isArray(value)) throw new Error("it must be an object with steps");
    return value;
  } catch (e) {
    $("recipe-error").textContent = "The recipe is not valid JSON: " + e.message;
    $("recipe").setAttribute("aria-invalid", "true");
    return null;
  }
}

/** The input: JSON when it reads as an object or array, else the text itself. */
function input() {
  $("input-error").textContent = "";
  const text = $("input").value;
  if (!/^\s*[[{]/.test(text)) return { ok: true, value: text };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    $("input-error").textContent = "The input starts like JSON but is not: " + e.message;
    return { ok: false };
  }
}

async function post(path, body) {
  const response = await fetch(path, {
    method: "POST",
    headers: Object.assign({ "Content-Type": "application/json" }, keyHeaders()),
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

function stepsTable(steps, failed) {
  const table = el("table", null, "steps");
  const head = el("tr");
  for (const h of ["#", "id", "operation", "status", "ms", "note"]) head.append(el("th", h));
  table.append(head);
  for (const s of steps) {
    const row = el("tr");
    const note = s.error ? s.error.code + ": " + s.error.message : s.reason || "";
    row.append(el("td", String(s.index)), el("td", s.id), el("td", s.op), el("td", s.status), el("td", String(s.ms)), el("td", note));
    table.append(row);
  }
  if (failed) {
    const row = el("tr", null, "bad-answer");
    row.append(el("td", String(failed.index)), el("td", failed.id), el("td", failed.op), el("td", "failed"), el("td", ""), el("td", ""));
    table.append(row);
  }
  return table;
}

async function run(event) {
  event.preventDefault();
  const r = recipe();
  const i = input();
  if (!r || !i.ok) return;
  $("run").disabled = true;
  try {
    const { status, body } = await post("/v1/recipes/run", Object.assign({}, r, { input: i.value }));
    const box = $("answer-body");
    box.replaceChildren();
    $("answer").hidden = false;
    $("answer-title").textContent = "Answer: " + status;
    if (body.success) {
      // Each text member of the result on its own, then the whole result as JSON.
      const result = body.data.result;
      if (result !== null && typeof result === "object" && !Array.isArray(result)) {
        for (const [k, v] of Object.entries(result)) if (typeof v === "string") box.append(el("h3", k), el("pre", v));
      }
      const text = typeof result === "string" ? result : JSON.stringify(result, null, 2);
      box.append(el("h3", "result"), el("pre", text), stepsTable(body.data.steps, null));
    } else {
      const e = body.error;
      box.append(el("p", e.code + ": " + e.message, "bad-answer"));
      if (e.step) box.append(stepsTable([], e.step));
      if (e.field && /^(steps|result)/.test(e.field)) $("recipe-error").textContent = e.field + ": " + e.message;
      if (e.field === "input") $("input-error").textContent = e.message;
    }
    document.title = "Recipe (" + status + ") · wrench";
  } catch (e) {
    $("saved").textContent = "The call failed: " + e.message;
    document.title = "Recipe (failed) · wrench";
  } finally {
    $("run").disabled = false;
  }
}

async function save() {
  const r = recipe();
  if (!r) return;
  const { status, body } = await post("/v1/recipes", { recipe: r });
  if (!body.success) {
    $("recipe-error").textContent = (body.error.field ? body.error.field + ": " : "") + body.error.message;
    document.title = "Recipe (" + status + ") · wrench";
    return;
  }
  const link = location.origin + "/recipes/" + body.data.id;
  history.replaceState(null, "", "/recipes/" + body.data.id);
  $("saved").replaceChildren(
    document.createTextNode("Stored until " + body.data.expiresAt + ": "),
    Object.assign(el("a", link), { href: link }),
    document.createTextNode(". Its manage token, shown once (it deletes the recipe): "),
    el("code", body.data.manageToken),
  );
  document.title = "Recipe stored · wrench";
}

async function load() {
  const catalog = await fetch("/v1/operations?recipeable=true", { headers: keyHeaders() });
  const listed = await catalog.json();
  if (!listed.success) throw new Error(listed.error.message);
  const select = $("add-op");
  for (const op of listed.data.operations) select.append(new Option(op.operationId + ": " + op.summary, op.operationId));
  $("add").addEventListener("click", () => {
    const r = recipe() || { steps: [] };
    r.steps = Array.isArray(r.steps) ? r.steps : [];
    r.steps.push(select.value);
    $("recipe").value = JSON.stringify(r, null, 2);
  });
  const stored = /^\/recipes\/([A-Za-z0-9]+)$/.exec(location.pathname);
  if (stored) {
    const response = await fetch("/v1/recipes/" + stored[1], { headers: keyHeaders() });
    const body = await response.json();
    if (!body.success) {
      $("name").textContent = response.status === 404 ? "No such recipe" : "This recipe could not be loaded";
      $("saved").textContent = body.error.message;
      document.title = (response.status === 404 ? "Not found" : "Error") + " · wrench";
      return;
    }
    $("recipe").value = JSON.stringify(body.data.recipe, null, 2);
    $("name").textContent = body.data.name || "Recipe " + body.data.id;
    $("saved").textContent = "Stored recipe, kept until " + body.data.expiresAt + ".";
  } else {
    $("recipe").value = JSON.stringify(SAMPLE, null, 2);
    $("input").value = "aGVsbG8sIHJlY2lwZXM=";
  }
  $("recipe-form").addEventListener("submit", run);
  $("save").addEventListener("click", () => save().catch((e) => ($("saved").textContent = "The call failed: " + e.message)));
  document.title = "Recipe · wrench";
}

document.addEventListener("DOMContentLoaded", () => {
  load().catch((e) => {
    window.pageErrors.push(String(e));
    $("saved").textContent = "This page could not load: " + e.message;
  });
});
