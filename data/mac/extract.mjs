// Regenerates oui.tsv, the IEEE Registration Authority's MAC address block assignments
// (MA-L, MA-M and MA-S; the old IAB blocks are listed with MA-S), for `mac/lookup`, from npm
// oui-data, which republishes the registries as JSON. One line per block: the prefix in upper
// case hex (6, 7 or 9 digits), the organisation, then its address lines, tab separated.
//
//     npm install oui-data@2.1.9 && node data/mac/extract.mjs
import { createRequire } from "node:module";
import { writeFileSync } from "node:fs";

const require = createRequire(import.meta.url);
const registry = require("oui-data");
const here = new URL(".", import.meta.url).pathname;

const lines = Object.keys(registry).sort().map((prefix) => {
  const [organisation, ...address] = registry[prefix].split("\n").map((l) => l.trim());
  return [prefix.toUpperCase(), organisation, ...address].join("\t");
});
writeFileSync(here + "oui.tsv", lines.join("\n") + "\n");
const counts = { 6: 0, 7: 0, 9: 0 };
for (const prefix of Object.keys(registry)) counts[prefix.length] += 1;
console.log(`${lines.length} blocks: MA-L ${counts[6]}, MA-M ${counts[7]}, MA-S ${counts[9]}`);
