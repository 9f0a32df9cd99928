// Dense feedback from the keyword list: the question embedded together with the title of the best
// keyword hit's note (or its first K titles), in place of (or averaged with) the question's own vector.
import fs from "node:fs";
import { loadLab, denseList, unit } from "./load.js";
import { evaluateRun, fmt, fuseLinear, notesOf } from "./score.js";
import { useLiteEmbedder } from "../../src/embed/index.js";

const [name, target, vault] = process.argv.slice(2);
const lab = await loadLab(name, target, vault);
const embedder = useLiteEmbedder();
const cacheFile = `/tmp/lab11/qtitle-${name}.json`;
const cache: Record<string, number[]> = fs.existsSync(cacheFile) ? JSON.parse(fs.readFileSync(cacheFile, "utf8")) : {};
const vec = async (t: string) => Float32Array.from((cache[t] ??= Array.from(await embedder.embedQuery(t))));
const K = Number(process.env.K ?? 1);
const vecs = new Map<string, Float32Array>();
for (const q of lab.queries) {
  const titles = [...new Set(q.kws.map((r) => lab.chunks[r.i].title))].slice(0, K);
  vecs.set(q.id, await vec(`${q.text}\n${titles.join("\n")}`));
}
fs.writeFileSync(cacheFile, JSON.stringify(cache));
const base = evaluateRun(lab, (q) => notesOf(lab, fuseLinear([denseList(lab, q), q.kws], [0.35, 0.65])));
console.log(name, "base", fmt(base));
for (const mix of [1, 0.5, 0.3]) {
  const r = evaluateRun(lab, (q) => {
    const v = unit(q.vec.map((x, i) => (1 - mix) * x + mix * vecs.get(q.id)![i]));
    return notesOf(lab, fuseLinear([denseList(lab, q, 300, v), q.kws], [0.35, 0.65]));
  });
  console.log(name, `K ${K} mix ${mix}`, fmt(r));
}
