// The note's title in what the model reads of a passage. Today a passage is embedded as the headings
// below the title on its first line (empty at the top level), then its text: til's notes, whose
// first heading is their title ("Check If A File Has Changed In A Script"), and SciFact's papers
// are embedded without it. Variants: `section`, the whole breadcrumb (title included) on the first
// line; `title`, the title alone before today's first line. Re-embeds every window and prints
// dense and hybrid nDCG@10 against the index's own vectors, in the lab's lists. Not shipped.
// npx tsx bench/lab/sess16-titleembed.ts til ../shared/bench/til/questions.jsonl /tmp/til section
// npx tsx bench/lab/sess16-titleembed.ts scifact ../shared/bench/scifact-train - section
import { prepareBeir } from "../../src/search/eval.js";
import { loadLab, type LabQuery } from "./load.js";
import { denseOf, reembedLab } from "./reembed-lib.js";
import { evaluateRun, fmt, fuseLinear, notesOf } from "./score.js";

const [name, target, vaultArg, variant] = process.argv.slice(2);
const vault = vaultArg === "-" ? prepareBeir(target).vault : vaultArg;
const lab = await loadLab(name, target, vaultArg === "-" ? undefined : vault);
const dl = (q: LabQuery) => denseOf(lab, q);
const report = (label: string) => {
  console.log(name, label, "dense ", fmt(evaluateRun(lab, (q) => notesOf(lab, dl(q)))));
  for (const a of [0.6, 0.65, 0.7])
    console.log(
      name,
      label,
      "hybrid",
      a,
      fmt(evaluateRun(lab, (q) => notesOf(lab, fuseLinear([dl(q), q.kws], [1 - a, a])))),
    );
};
report("index");
const RULES: Record<string, (embedText: string, section: string, title: string) => string> = {
  section: (t, section) => `${section}\n${t.slice(t.indexOf("\n") + 1)}`,
  title: (t, _s, title) => `${title}\n${t}`,
};
const rule = RULES[variant];
const missing = await reembedLab(lab, vault, `/tmp/lab-titleembed-${name}-${variant}.json`, (text, cut, c) =>
  cut(rule(text, c.meta.section, c.meta.title)),
);
console.log("missing", missing);
report(variant);
