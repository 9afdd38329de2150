// JA3 and JA4 of captured ClientHellos by an independent implementation: HTTP Toolkit's
// read-tls-client-hello (Apache-2.0), which the tls_fingerprint test compares wrench's answers
// with. Reads one capture per line (the hex of the bytes a client sent first) on standard
// input and writes one JSON line each: {"ja3": MD5, "ja4": ...}.
// Usage: node tests/tls/fingerprint_reference.mjs DIR < captures
// where DIR holds node_modules/read-tls-client-hello (npm install --prefix DIR
// read-tls-client-hello@2.0.0).
import { createRequire } from "node:module";
import { PassThrough } from "node:stream";
import path from "node:path";
import readline from "node:readline";

const require = createRequire(path.join(path.resolve(process.argv[2]), "package.json"));
const { readTlsClientHello, calculateJa3, calculateJa4 } = require("read-tls-client-hello");

for await (const line of readline.createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const stream = new PassThrough();
  stream.end(Buffer.from(line.trim(), "hex"));
  const hello = await readTlsClientHello(stream);
  process.stdout.write(JSON.stringify({ ja3: calculateJa3(hello), ja4: calculateJa4(hello) }) + "\n");
}
