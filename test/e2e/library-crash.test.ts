import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { explain, spawnChild, stopChildren } from "../support/children.js";
import { BIN, exampleVaultCopy } from "./helpers.js";

afterEach(stopChildren);

/** Runs a script with node, in its own process group (stopped however the test ends). */
function node(file: string, cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawnChild(process.execPath, [file], {
      cwd,
      env: { ...process.env, VAULT_RAG_VAULT: "", VAULT_RAG_DB: "" },
    });
    let stdout = "";
    let stderr = "";
    p.stdout!.on("data", (d) => (stdout += d));
    p.stderr!.on("data", (d) => (stderr += d));
    p.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("the library and the user's own crash reports", () => {
  it("leaves an error or rejection of the user's script after a search to Node: its stack, exit 1", async () => {
    const { vault, elsewhere } = exampleVaultCopy("vr-crash-");
    const index = path.resolve(path.dirname(BIN), "..", "index.js");
    const script = path.join(elsewhere, "crash.mjs");
    fs.writeFileSync(
      script,
      [
        `import { openVault } from ${JSON.stringify(index)};`,
        `const notes = await openVault(${JSON.stringify(vault)});`,
        `await notes.index();`,
        `const { hits } = await notes.search("how do I save power");`,
        `console.log("hits", hits.length);`,
        `function userCode() { throw new Error("the user's own bug"); }`,
        `userCode();`,
      ].join("\n"),
    );
    const r = await node(script, elsewhere);
    expect(r.stdout, explain("the script", r)).toMatch(/^hits [1-9]/m);
    expect(r.code, explain("the script", r)).toBe(1);
    // Node's own report: the thrown error and its stack in the script, not in TensorFlow.js
    expect(r.stderr).toContain("Error: the user's own bug");
    expect(r.stderr).toMatch(/at userCode \(file:\/\/.*crash\.mjs:6:/);
    expect(r.stderr).not.toContain("tf-backend-wasm");

    // an unhandled rejection too: Node's report of the reason (its own, exit 1), not the backend's
    const rejecting = path.join(elsewhere, "reject.mjs");
    fs.writeFileSync(
      rejecting,
      [
        `import { openVault } from ${JSON.stringify(index)};`,
        `const notes = await openVault(${JSON.stringify(vault)});`,
        `const { hits } = await notes.search("how do I save power");`,
        `console.log("hits", hits.length);`,
        `async function userCode() { throw new Error("the user's own rejection"); }`,
        `userCode();`,
      ].join("\n"),
    );
    const q = await node(rejecting, elsewhere);
    expect(q.stdout, explain("the script", q)).toMatch(/^hits [1-9]/m);
    expect(q.code, explain("the script", q)).toBe(1);
    expect(q.stderr).toContain("Error: the user's own rejection");
    expect(q.stderr).toMatch(/at userCode \(file:\/\/.*reject\.mjs:5:/);
    expect(q.stderr).not.toContain("tf-backend-wasm");
  });
});
