#!/usr/bin/env node
// Prints the README's first command: the first ```sh block of README.md, as one shell script.
// `.ci/run` runs it before `npm test`, so CI tries what a new user types first.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const readme = fs.readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "README.md"), "utf8");
const block = /^```sh\n([\s\S]*?)^```$/m.exec(readme);
if (!block) {
  process.stderr.write("vault-rag: README.md has no ```sh block — put the first command a user runs in one\n");
  process.exit(2);
}
process.stdout.write(block[1]);
