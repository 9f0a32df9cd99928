import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { Embedder } from "../dist/embed/index.js";
import { indexVault } from "../dist/indexing/index.js";
import { normaliseWhereDocument, SqliteStore } from "../dist/store/index.js";

const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

/**
 * The ReDoS figure of issue 16: `$regex ^(a+)+$` over a 100 KB run of `a`s, against an ordinary
 * search of the same index. Once in the store (one chunk holding the whole run) and once end to end
 * through the CLI over examples/vault plus a note of 100 KB of `a`s.
 *
 * @example
 * ```ts
 * await regexBench({ work: "/tmp/b", root: ".", bin: "dist/cli/main.js", embedder, line: console.log });
 * ```
 */
export async function regexBench(o: {
  work: string;
  root: string;
  bin: string;
  embedder: Embedder;
  line: (s: string) => void;
}): Promise<void> {
  const run = "a".repeat(100_000);
  // the store alone: one chunk of 100 KB of a's and a "!" among the example vault's chunks
  const vault = path.join(o.work, "regex");
  fs.cpSync(path.join(o.root, "examples/vault"), vault, { recursive: true, filter: (s) => !s.includes(".vault-rag") });
  fs.writeFileSync(path.join(vault, "aaaa.md"), `# Run\n\n${run}!\n`);
  const db = path.join(vault, ".vault-rag/index.db");
  await indexVault(vault, db, o.embedder);
  const store = SqliteStore.open(db);
  const q = await o.embedder.embedQuery("how do the SMARS motors work");
  const [rec] = (await store.get({})).slice(0, 1);
  await store.upsertNotes([
    {
      note: { path: "one-chunk.md", hash: "x", mtime: 0, size: 0 },
      records: [
        {
          ...rec,
          id: "one-chunk",
          text: run + "!",
          windows: [{ hash: "one-chunk", vector: q }],
          meta: { ...rec.meta, path: "one-chunk.md" },
        },
      ],
    },
  ]);
  const wd = normaliseWhereDocument({ $regex: "^(a+)+$" });
  const time = async (f: () => Promise<unknown>) => {
    const ms: number[] = [];
    for (let i = 0; i < 7; i++) {
      const t = performance.now();
      await f();
      ms.push(performance.now() - t);
    }
    return med(ms);
  };
  const plain = await time(() => store.queryKeyword("motors", 10));
  const plainDense = await time(() => store.queryDense(q, 10));
  const rx = await time(() => store.queryDense(q, 10, { whereDocument: wd }));
  await store.close();
  o.line(
    `regex  $regex ^(a+)+$ over 100 KB of a's (store, one chunk, all chunks scanned): ${rx.toFixed(1)} ms vs ordinary search ${plainDense.toFixed(1)} ms dense, ${plain.toFixed(1)} ms keyword`,
  );
  // a search that finds nothing exits 1, as grep does (the regex never matches: that is its worst case)
  const once = (args: string[]) => {
    const t = performance.now();
    const r = spawnSync(process.execPath, [o.bin, ...args], { stdio: ["ignore", "ignore", "pipe"] });
    if (r.status !== 0 && r.status !== 1) throw new Error(`vault-rag ${args.join(" ")} failed: ${r.stderr}`);
    return performance.now() - t;
  };
  const cli = (args: string[]) => med(Array.from({ length: 3 }, () => once(args)));
  const plainCli = cli(["search", "--vault", vault, "motors"]);
  const rxCli = cli(["search", "--vault", vault, "--where-document", '{"$regex": "^(a+)+$"}', "motors"]);
  o.line(
    `regex  $regex ^(a+)+$ over 100 KB of a's: ${Math.round(rxCli)} ms vs ordinary search ${Math.round(plainCli)} ms (vault-rag search end to end, median of 3)`,
  );
}
