// What the model reads of a passage. The bundled model is case-sensitive ("Prevent Sleep…" and "prevent sleep…" meet at cosine 0.77).
// Re-embeds a vault's windows and its questions with a case rule applied to both, and prints dense
// and hybrid nDCG@10 (α 0.65, the search's keyword list). Not shipped.
// npx tsx bench/lab/sess10-embedtext.ts til ../shared/bench/til/questions.jsonl /tmp/til lower|plain
import { useLiteEmbedder } from "../../src/embed/index.js";
import { prepareBeir } from "../../src/search/eval.js";
import { loadLab, type LabQuery } from "./load.js";
import { denseOf, reembedLab } from "./reembed-lib.js";
import { evaluateRun, fmt, fuseLinear, notesOf } from "./score.js";

const [name, target, vaultArg, variant] = process.argv.slice(2);
const vault = vaultArg === "-" ? prepareBeir(target).vault : vaultArg;
const lab = await loadLab(name, target, vaultArg === "-" ? undefined : vault);
const e = useLiteEmbedder();
const RULES: Record<string, (t: string) => string> = {
  same: (t) => t,
  lower: (t) => t.toLowerCase(),
  // what a reader sees of the Markdown: link text without its URL, no bare URLs, no backticks or emphasis marks
  plain: (t) =>
    t
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
      .replace(/\[\[([^\]|]*\|)?([^\]]*)\]\]/g, "$2")
      .replace(/<?https?:\/\/[^\s)>]+>?/g, " ")
      .replace(/`+/g, "")
      .replace(/(\*\*|__)(?=\S)|(?<=\S)(\*\*|__)/g, "")
      .replace(/[ \t]+/g, " "),
};
const f = RULES[variant];
// the rule applied to each window of the passage
const missing = await reembedLab(lab, vault, `/tmp/lab-embedtext-${name}-${variant}.json`, (text, cut) =>
  cut(text).map(f),
);
console.log("missing", missing);
const QRULES: Record<string, (t: string) => string> = {
  ...RULES,
  cap: (t) => t.charAt(0).toUpperCase() + t.slice(1),
  capq: (t) => {
    const s = t.charAt(0).toUpperCase() + t.slice(1).trim();
    return /[.?!]$/.test(s) ? s : s + "?";
  },
};
const qf = QRULES[process.env.QRULE ?? (variant === "lower" ? "lower" : "same")];
if (QRULES[process.env.QRULE ?? variant] !== RULES.same || variant === "lower")
  for (const q of lab.queries) q.vec = await e.embedQuery(qf(q.text));
const dl = (q: LabQuery) => denseOf(lab, q);
console.log(name, variant, process.env.QRULE ?? "", "dense ", fmt(evaluateRun(lab, (q) => notesOf(lab, dl(q)))));
for (const a of [0.6, 0.65, 0.7])
  console.log(
    name,
    variant,
    "hybrid",
    a,
    fmt(evaluateRun(lab, (q) => notesOf(lab, fuseLinear([dl(q), q.kws], [1 - a, a])))),
  );
