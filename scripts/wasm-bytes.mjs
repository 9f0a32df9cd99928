#!/usr/bin/env node
// Assembles src/embed/use-lite/matmul.wat into matmul-wasm.ts (the module's bytes as a TypeScript
// array), so the runtime needs no assembler. A test assembles the .wat again and compares.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import wabt from "wabt";

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), "../src/embed/use-lite");

/** The bytes of a WebAssembly text file. */
export async function assemble(file) {
  const w = await wabt();
  const mod = w.parseWat(path.basename(file), fs.readFileSync(file, "utf8"), { simd: true });
  mod.validate();
  const { buffer } = mod.toBinary({});
  mod.destroy();
  return Uint8Array.from(buffer);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const bytes = await assemble(path.join(dir, "matmul.wat"));
  const rows = [];
  for (let i = 0; i < bytes.length; i += 24) rows.push("  " + [...bytes.slice(i, i + 24)].join(", ") + ",");
  fs.writeFileSync(
    path.join(dir, "matmul-wasm.ts"),
    `// Generated from matmul.wat by \`node scripts/wasm-bytes.mjs\`; do not edit.\n/* prettier-ignore */\nexport const MATMUL_WASM = Uint8Array.from([\n${rows.join("\n")}\n]);\n`,
  );
  console.log(`matmul.wat → matmul-wasm.ts (${bytes.length} bytes)`);
}
