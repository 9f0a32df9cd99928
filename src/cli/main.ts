#!/usr/bin/env node
/**
 * The `vault-rag` command. A reading command first asks the resident process that holds its vault
 * to run it (`thin.ts`: Node's own modules and a few small ones); otherwise, or when none can, the
 * program runs here (`program.ts`).
 */
import { askResident } from "./thin.js";

if (!(await askResident(process.argv.slice(2)))) await (await import("./program.js")).main();
