// Writes every operation's SDK snippets as a tool page writes them (crates/server/src/ui/snippets.js),
// each for the input the page starts from (the operation's first example that answers 200, else
// its first), so that .ci/sdk-smoke can run them through the SDKs generated from the document:
// - DIR/snippets.json: [{operationId, expected, errorCodes, sendsBody, python}] for run_python.py;
// - DIR/snippets.ts: one function per operation around its TypeScript call, and a main that
//   prints [{operationId, status, code}] as JSON.
//
// Usage: node sdk/snippets/write.mjs BASE_URL API_KEY DIR
import fs from "node:fs";
import path from "node:path";
import vm from "node:vm";

const [base, key, dir] = process.argv.slice(2);
const here = path.dirname(new URL(import.meta.url).pathname);
vm.runInThisContext(fs.readFileSync(path.join(here, "../../crates/server/src/ui/snippets.js"), "utf8"));
const snippets = globalThis.wrenchSnippets;

const answer = await fetch(base + "/v1/operations", { headers: { "X-API-Key": key } });
const catalog = await answer.json();
if (!catalog.success) throw new Error("the catalog did not load: " + JSON.stringify(catalog.error));

const opts = { origin: base, keyed: true };
const python = [];
const functions = [];
catalog.data.operations.forEach((entry, i) => {
  const example = entry.examples.find((x) => x.status === 200) || entry.examples[0];
  const input = example ? example.input : {};
  const expected = example ? example.status : 200;
  python.push({
    operationId: entry.operationId,
    expected,
    errorCodes: entry.errorCodes,
    // A JSON body must be sent, even where the example's answer (a 404, say) would not tell.
    sendsBody: entry.inputKind === "json" && !["GET", "HEAD"].includes(entry.method),
    python: snippets.python(entry, input, opts),
  });
  const call = snippets.typescriptCall(entry, input).replace(/^/gm, "  ");
  functions.push(
    `// ${entry.operationId}\nasync function op${i}(): Promise<[number, unknown]> {\n${call}\n  void data;\n  return [response.status, error];\n}`,
  );
  functions.push(`calls.push([${JSON.stringify(entry.operationId)}, ${expected}, ${JSON.stringify(entry.errorCodes)}, op${i}]);`);
});

// The head of every TypeScript snippet, once; the calls' own logging is silenced.
const head = snippets.typescriptHead(opts);
const ts = `${head}
const calls: [string, number, string[], () => Promise<[number, unknown]>][] = [];
${functions.join("\n")}
const print = console.log;
console.log = () => {};
const results = [];
for (const [operationId, expected, errorCodes, call] of calls) {
  const [status, error] = await call();
  const code = (error as { error?: { code?: string } } | undefined)?.error?.code ?? null;
  results.push({ operationId, expected, errorCodes, status, code });
}
print(JSON.stringify(results));
`;
fs.writeFileSync(path.join(dir, "snippets.json"), JSON.stringify(python));
fs.writeFileSync(path.join(dir, "snippets.ts"), ts);
console.log(`snippets written for ${catalog.data.operations.length} operations`);
