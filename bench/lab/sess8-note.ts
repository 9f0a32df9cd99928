// Helper-session experiments (not shipped):
//  notevec: a chunk's dense score mixed with the cosine of its whole note's pooled vector.
// (The gated vector PRF on a finer grid: IDEA=prf K='[1]' MARGINS=… BETAS=… sess8-ideas.ts.)
// IDEA=all|notevec
import { loadLab, dot } from "./load.js";
import { baseline, fuseLinear, notesOf, type Scored } from "./score.js";
import { pooledVector } from "../../src/store/windows.js";

const [name, target, vault] = process.argv.slice(2);
const IDEA = process.env.IDEA ?? "all";
const on = (k: string) => IDEA === "all" || IDEA.split(",").includes(k);
const lab = await loadLab(name, target, vault);
const A = 0.65;
const { show, sortS } = baseline(lab, A);

if (on("notevec")) {
  const byNote = new Map<string, Float32Array[]>();
  for (const c of lab.chunks) (byNote.get(c.path) ?? byNote.set(c.path, []).get(c.path)!).push(...c.windows);
  const noteVec = new Map([...byNote].map(([p, w]) => [p, pooledVector(w.map((vector) => ({ vector })))]));
  for (const nu of [0.2, 0.4, 0.6]) {
    const lists = new Map(
      lab.queries.map((q) => {
        const out: Scored = [];
        lab.chunks.forEach(
          (c, i) =>
            q.allowed(i) && out.push({ i, s: (1 - nu) * dot(q.vec, c.vec) + nu * dot(q.vec, noteVec.get(c.path)!) }),
        );
        return [q.id, sortS(out).slice(0, 300)];
      }),
    );
    show(`notevec nu${nu} dense`, (q) => notesOf(lab, lists.get(q.id)!));
    show(`notevec nu${nu} hyb`, (q) => notesOf(lab, fuseLinear([lists.get(q.id)!, q.kws], [1 - A, A])));
  }
}
