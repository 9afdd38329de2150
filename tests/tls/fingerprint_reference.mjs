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

// read-tls-client-hello reads a ClientHello from the first TLS record only; a larger hello
// (clients split it into records of at most 16 KiB) is joined into one record here first.
// The record layer is no part of either fingerprint.
function oneRecord(bytes) {
  const parts = [];
  let at = 0;
  let have = 0;
  while (at + 5 <= bytes.length && bytes[at] === 22) {
    const length = bytes.readUInt16BE(at + 3);
    parts.push(bytes.subarray(at + 5, at + 5 + length));
    have += length;
    at += 5 + length;
    const message = Buffer.concat(parts);
    if (have >= 4 && have >= 4 + message.readUIntBE(1, 3)) {
      const hello = message.subarray(0, 4 + message.readUIntBE(1, 3));
      const header = Buffer.from([22, bytes[1], bytes[2], hello.length >> 8, hello.length & 0xff]);
      return Buffer.concat([header, hello]);
    }
  }
  return bytes;
}

for await (const line of readline.createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const stream = new PassThrough();
  stream.end(oneRecord(Buffer.from(line.trim(), "hex")));
  const hello = await readTlsClientHello(stream);
  process.stdout.write(JSON.stringify({ ja3: calculateJa3(hello), ja4: calculateJa4(hello) }) + "\n");
}
