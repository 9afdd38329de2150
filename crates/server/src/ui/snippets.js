// A tool page's inputs as a call through each SDK the README describes, generated from the
// checked-in document: Python (openapi-python-client, with `sdk/python/config.yml`) and
// TypeScript (openapi-fetch over openapi-typescript's types); the curl command is the page's
// own (`tool.js`). Names follow those generators' rules (module and argument names in snake
// case, a body's model by its schema's name), so a snippet is checked the only way that counts:
// CI generates both SDKs and runs every operation's snippets against a server (`sdk/snippets/`,
// from `.ci/sdk-smoke`). No DOM here: the same file runs in that check.
"use strict";

(function (root) {
  /** The field a raw body travels in among a page's inputs. */
  const RAW = "$body";

  // openapi-python-client's names: words split at delimiters and case changes, and a name
  // that is a Python keyword or builtin (bar `id`) given a trailing `_`.
  const PY_RESERVED = new Set(
    (
      "False None True and as assert async await break class continue def del elif else except finally for " +
      "from global if import in is lambda nonlocal not or pass raise return try while with yield self true false " +
      "datetime abs aiter all anext any ascii bin bool breakpoint bytearray bytes callable chr classmethod " +
      "compile complex copyright credits delattr dict dir divmod enumerate eval exec exit filter float format " +
      "frozenset getattr globals hasattr hash help hex input int isinstance issubclass iter len license list " +
      "locals map max memoryview min next object oct open ord pow print property quit range repr reversed round " +
      "set setattr slice sorted staticmethod str sum super tuple type vars zip"
    ).split(" "),
  );

  function words(name) {
    let v = String(name).replace(/[^A-Za-z0-9_. -]/g, "");
    if (/[A-Z]/.test(v)) v = v.split(/([A-Z]?[a-z]+)/).join(" ");
    return v.match(/[^. _-]+/g) || [];
  }
  const reserved = (v) => (PY_RESERVED.has(v) ? v + "_" : v);
  const snake = (name) => reserved(words(name).join("_").toLowerCase());
  const pascal = (name) =>
    reserved(
      words(name)
        .map((w) => (/[A-Z]/.test(w) && w === w.toUpperCase() ? w : w.charAt(0).toUpperCase() + w.slice(1).toLowerCase()))
        .join(""),
    );

  // How each language writes JSON's values: its indent, its object keys and its scalars
  // (JSON's strings and numbers are both languages' too).
  const PYTHON = {
    indent: "    ",
    key: (k) => JSON.stringify(k),
    scalar: (v) => (v === null ? "None" : v === true ? "True" : v === false ? "False" : JSON.stringify(v)),
  };
  const TYPESCRIPT = {
    indent: "  ",
    key: (k) => (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(k) ? k : JSON.stringify(k)),
    scalar: (v) => JSON.stringify(v),
  };

  /** `value` as a literal of `lang` (PYTHON or TYPESCRIPT), indented by `pad`. */
  function literal(value, pad, lang) {
    if (value === null || value === undefined || typeof value !== "object") return lang.scalar(value ?? null);
    const inner = pad + lang.indent;
    const items = Array.isArray(value)
      ? value.map((v) => inner + literal(v, inner, lang))
      : Object.entries(value).map(([k, v]) => inner + lang.key(k) + ": " + literal(v, inner, lang));
    const [open, close] = Array.isArray(value) ? ["[", "]"] : ["{", "}"];
    return items.length ? open + "\n" + items.join(",\n") + ",\n" + pad + close : open + close;
  }

  /**
   * What a call of `entry` with `input` sends, by how its main route takes input: its path
   * parameters, and its query fields, its JSON body, or its raw body with that body's media
   * type (JSON when it parses as JSON, else UTF-8 text).
   */
  function parts(entry, input) {
    const rest = Object.assign({}, input);
    const path = {};
    for (const [, name] of entry.path.matchAll(/\{([^}]+)\}/g)) {
      path[name] = rest[name] === undefined ? "" : String(rest[name]);
      delete rest[name];
    }
    const out = { path, query: null, body: null, raw: null, rawType: null };
    if (entry.inputKind === "raw") {
      out.raw = typeof rest[RAW] === "string" ? rest[RAW] : "";
      let json = true;
      try {
        JSON.parse(out.raw);
      } catch (_) {
        json = false;
      }
      out.rawType = json ? "application/json" : "text/plain; charset=utf-8";
    } else if (entry.inputKind === "query" || ["GET", "HEAD"].includes(entry.method)) {
      // A GET or HEAD carries no body (a browser's fetch refuses one): its fields are a query.
      if (Object.keys(rest).length) out.query = rest;
    } else if (entry.inputKind === "json") {
      out.body = rest;
    }
    return out;
  }

  /** The schema `$ref` of an input field names (`#/$defs/Name`), if any. */
  function refName(entry, field) {
    const s = entry.inputSchema && entry.inputSchema.properties && entry.inputSchema.properties[field];
    const ref = s && (s.$ref || (Array.isArray(s.allOf) && s.allOf.length === 1 && s.allOf[0].$ref));
    return typeof ref === "string" && ref.startsWith("#/$defs/") ? ref.slice("#/$defs/".length) : null;
  }

  function defOf(entry, name) {
    return (entry.inputSchema && entry.inputSchema.$defs && entry.inputSchema.$defs[name]) || {};
  }

  /**
   * The Python model of a JSON body: its schema's name, or `{OperationId}Body` for a schema the
   * document writes in place; for a schema that is one of several shapes, the first shape whose
   * required fields `body` gives (`{Name}Type{i}`).
   */
  function bodyModel(entry, body) {
    const name = entry.inputSchemaName ? pascal(entry.inputSchemaName) : pascal(entry.operationId) + "Body";
    const shapes = entry.inputSchema && (entry.inputSchema.oneOf || entry.inputSchema.anyOf);
    if (!Array.isArray(shapes)) return name;
    const given = (field) => body[field] !== undefined && body[field] !== null;
    const i = shapes.findIndex((shape) => (shape.required || []).every(given));
    return name + "Type" + Math.max(i, 0);
  }

  /** A call through the Python client openapi-python-client generates (`wrench_client`). */
  function python(entry, input, opts) {
    const p = parts(entry, input);
    const fn = snake(entry.operationId);
    const models = new Set();
    const imports = ["from wrench_client import " + (opts.keyed ? "AuthenticatedClient" : "Client")];
    const args = [];
    for (const [name, value] of Object.entries(p.path)) args.push(snake(name) + "=" + JSON.stringify(value));
    args.push("client=client");
    for (const [name, value] of Object.entries(p.query || {})) {
      // A query field of a named enum takes the generated enum class, not a bare string.
      const ref = refName(entry, name);
      if (ref && Array.isArray(defOf(entry, ref).enum)) {
        models.add(pascal(ref));
        args.push(snake(name) + "=" + pascal(ref) + "(" + literal(value, "    ", PYTHON) + ")");
      } else {
        args.push(snake(name) + "=" + literal(value, "    ", PYTHON));
      }
    }
    if (p.body) {
      const model = bodyModel(entry, p.body);
      models.add(model);
      args.push("body=" + model + ".from_dict(" + literal(p.body, "    ", PYTHON) + ")");
    }
    if (p.raw !== null) {
      imports.unshift("import io");
      imports.push("from wrench_client.types import File");
      args.push("body=File(payload=io.BytesIO(" + JSON.stringify(p.raw) + ".encode()))");
    }
    if (opts.keyed) imports.unshift("import os");
    imports.push("from wrench_client.api." + snake(entry.tag) + " import " + fn);
    if (models.size) imports.push("from wrench_client.models import " + [...models].sort().join(", "));
    const client = opts.keyed
      ? "client = AuthenticatedClient(base_url=" + JSON.stringify(opts.origin) + ', token=os.environ["WRENCH_API_KEY"])'
      : "client = Client(base_url=" + JSON.stringify(opts.origin) + ")";
    if (entry.method === "HEAD") {
      // The generated function would parse the body a HEAD answer never has: its client sends it.
      const url = entry.path.replace(/\{([^}]+)\}/g, (_, n) => encodeURIComponent(p.path[n]));
      return [
        ...imports.filter((line) => !line.startsWith("from wrench_client.api") && !line.startsWith("from wrench_client.models")),
        "",
        client,
        "response = client.get_httpx_client().head(" + JSON.stringify(url) + ")",
        "print(response.status_code, dict(response.headers))",
        "",
      ].join("\n");
    }
    const shown = {
      json: "print(response.status_code, response.parsed)",
      image: 'print(response.status_code, response.headers.get("content-type"), len(response.content), "bytes")',
      redirect: 'print(response.status_code, response.headers.get("location"))',
      raw: "print(response.status_code, response.content)",
    };
    return [
      ...imports,
      "",
      client,
      "response = " + fn + ".sync_detailed(\n    " + args.join(",\n    ") + ",\n)",
      shown[entry.outputKind] || shown.json,
      "",
    ].join("\n");
  }

  /** The call itself through openapi-fetch (a `client` in scope): its answer, then a line showing it. */
  function typescriptCall(entry, input) {
    const p = parts(entry, input);
    const init = [];
    const params = [];
    if (Object.keys(p.path).length) params.push("path: " + literal(p.path, "    ", TYPESCRIPT));
    if (p.query) params.push("query: " + literal(p.query, "    ", TYPESCRIPT));
    if (params.length) init.push("params: {\n    " + params.join(",\n    ") + ",\n  }");
    if (p.body) init.push("body: " + literal(p.body, "  ", TYPESCRIPT));
    if (p.raw !== null) {
      // openapi-fetch writes bodies as JSON unless told to send them as they are.
      init.push("body: " + JSON.stringify(p.raw), "bodySerializer: (b) => b");
      init.push('headers: { "Content-Type": ' + JSON.stringify(p.rawType) + " }");
    }
    if (entry.outputKind === "image") init.push('parseAs: "arrayBuffer"');
    if (entry.outputKind === "redirect") init.push('redirect: "manual"');
    const options = init.length ? ", {\n  " + init.join(",\n  ") + ",\n}" : "";
    const shown = {
      image: 'console.log(response.status, response.headers.get("content-type")); // data: the image\'s bytes',
      redirect: 'console.log(response.status, response.headers.get("location"));',
    };
    return [
      "const { data, error, response } = await client." + entry.method + "(" + JSON.stringify(entry.path) + options + ");",
      shown[entry.outputKind] || "console.log(response.status, data ?? error);",
    ].join("\n");
  }

  /** The lines before any TypeScript call: openapi-fetch's client, typed by openapi-typescript's `schema.d.ts`. */
  function typescriptHead(opts) {
    return [
      'import createClient from "openapi-fetch";',
      "// schema.d.ts: npx openapi-typescript " + opts.origin + "/openapi.json -o schema.d.ts --default-non-nullable false",
      'import type { paths } from "./schema.js";',
      "",
      "const client = createClient<paths>({",
      "  baseUrl: " + JSON.stringify(opts.origin) + ",",
      opts.keyed ? '  headers: { "X-API-Key": process.env.WRENCH_API_KEY ?? "" },' : null,
      "});",
    ]
      .filter((line) => line !== null)
      .join("\n");
  }

  /** A whole program: the client, and the call. */
  function typescript(entry, input, opts) {
    return typescriptHead(opts) + "\n" + typescriptCall(entry, input) + "\n";
  }

  root.wrenchSnippets = { parts, python, typescript, typescriptHead, typescriptCall, RAW };
})(globalThis);
