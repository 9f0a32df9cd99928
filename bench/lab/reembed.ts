// Re-embed a vault's chunks with a variant of the embedded text, and compare dense and hybrid.
import { loadLab } from "./load.js";
import { denseOf, reembedLab } from "./reembed-lib.js";
import { evaluateRun, fmt, fuseLinear, notesOf } from "./score.js";

const [name, target, vault, variant] = process.argv.slice(2);
const lab = await loadLab(name, target, vault);
const VARIANTS: Record<string, (t: string) => string> = {
  same: (t) => t,
  nocode: (t) => t.replace(/^(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, " ").replace(/\n{3,}/g, "\n\n"),
  nomd: (t) =>
    t
      .replace(/^(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, " ")
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .replace(/https?:\/\/\S+/g, " ")
      .replace(/[`*_#>|]/g, " ")
      .replace(/\s+/g, " "),
};
const f = VARIANTS[variant];
// the variant of the passage's text, cut into windows (the passage as written when nothing is left)
const missing = await reembedLab(lab, vault, `/tmp/lab-reembed-${name}-${variant}.json`, (text, cut) => {
  const t = f(text);
  return cut(t.trim() ? t : text);
});
console.log("missing", missing);
const dl = (q: (typeof lab.queries)[number]) => denseOf(lab, q);
console.log(variant, "dense ", fmt(evaluateRun(lab, (q) => notesOf(lab, dl(q)))));
for (const a of [0.6, 0.65, 0.7])
  console.log(variant, "hybrid", a, fmt(evaluateRun(lab, (q) => notesOf(lab, fuseLinear([dl(q), q.kwx], [1 - a, a])))));
