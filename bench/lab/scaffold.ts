// Dense: the question without its interrogative scaffolding ("how do I", "is there any way to").
import { loadLab, dot } from "./load.js";
import { evaluateRun, fmt, fuseLinear, notesOf } from "./score.js";
import { useLiteEmbedder } from "../../src/embed/index.js";
const [name, target, vault] = process.argv.slice(2);
const lab = await loadLab(name, target, vault);
const e = useLiteEmbedder();
const RE =
  /\b(how (do|can|should|would) (i|we|you)|how to|is there (any|a) way to|what('s| is) the (best |quickest |easiest )?way to|quickest way to|i want to|i'd like to|can i|do i need to|what (do|should) i)\b/gi;
const alt = new Map<string, Float32Array>();
let changed = 0;
for (const q of lab.queries) {
  const t = q.text.replace(RE, " ").replace(/\?/g, " ").replace(/\s+/g, " ").trim();
  if (t !== q.text) changed++;
  alt.set(q.id, t && t !== q.text ? await e.embedQuery(t) : q.vec);
}
console.log(changed, "of", lab.queries.length, "changed");
const dl = (q: (typeof lab.queries)[number], mix: number) => {
  const out: { i: number; s: number }[] = [];
  const v = alt.get(q.id)!;
  lab.chunks.forEach((c, i) => {
    if (q.allowed(i)) out.push({ i, s: (1 - mix) * dot(q.vec, c.vec) + mix * dot(v, c.vec) });
  });
  return out.sort((a, b) => b.s - a.s).slice(0, 300);
};
for (const mix of [0, 0.5, 1]) {
  console.log(name, mix, "dense ", fmt(evaluateRun(lab, (q) => notesOf(lab, dl(q, mix)))));
  console.log(
    name,
    mix,
    "hybrid",
    fmt(evaluateRun(lab, (q) => notesOf(lab, fuseLinear([dl(q, mix), q.kwx], [0.35, 0.65])))),
  );
}
