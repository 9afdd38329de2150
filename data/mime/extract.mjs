// Regenerates types.tsv and extensions.tsv from npm mime-db (the media types, their sources,
// compressibility, charsets and extensions) and npm mime-types (which type an extension
// resolves to when several claim it), for `mime/lookup`.
//
//     npm install mime-db@1.54.0 mime-types@3.0.2 && node data/mime/extract.mjs
import { createRequire } from "node:module";
import { writeFileSync } from "node:fs";

const require = createRequire(import.meta.url);
const db = require("mime-db");
const mime = require("mime-types");
const here = new URL(".", import.meta.url).pathname;

const types = Object.keys(db).sort().map((type) => {
  const e = db[type];
  const compressible = e.compressible === undefined ? "" : e.compressible ? "1" : "0";
  return [type, e.source ?? "", compressible, e.charset ?? "", (e.extensions ?? []).join(",")].join("\t");
});
writeFileSync(here + "types.tsv", types.join("\n") + "\n");

const extensions = [...new Set(Object.values(db).flatMap((e) => e.extensions ?? []))].sort();
const resolved = extensions.map((ext) => `${ext}\t${mime.lookup(ext)}`);
writeFileSync(here + "extensions.tsv", resolved.join("\n") + "\n");
console.log(`${types.length} types, ${extensions.length} extensions`);
