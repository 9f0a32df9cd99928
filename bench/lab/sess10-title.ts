// The note's title embedded alone, as a second dense signal beside the passage's own vector:
// question-to-title is the short-to-short matching the bundled model was trained on. Prints hybrid
// nDCG@10 for dense = chunk cosine + B × title cosine, and for max(chunk, title). Not shipped.
// npx tsx bench/lab/sess10-title.ts til ../shared/bench/til/questions.jsonl /tmp/til
import { loadLab, dot, titleVectors } from "./load.js";
import { baseline, fuseLinear, notesOf, type Scored } from "./score.js";

const [name, target, vault] = process.argv.slice(2);
const lab = await loadLab(name, target, vault);
const { show } = baseline(lab);
const tvec = await titleVectors(lab);
const alpha = Number(process.env.ALPHA ?? 0.65);
for (const B of JSON.parse(process.env.GRID ?? "[0,0.1,0.2,0.3,0.5,1]") as number[]) {
  for (const rule of ["sum", "max"]) {
    if (rule === "max" && B !== 1) continue;
    show(`title ${rule} B ${B}`, (q) => {
      const out: Scored = [];
      lab.chunks.forEach((c, i) => {
        if (!q.allowed(i)) return;
        const a = dot(q.vec, c.vec),
          t = dot(q.vec, tvec.get(c.title)!);
        out.push({ i, s: rule === "max" ? Math.max(a, t) : a + B * t });
      });
      out.sort((x, y) => y.s - x.s);
      return notesOf(lab, fuseLinear([out.slice(0, 300), q.kws], [1 - alpha, alpha]));
    });
  }
}
