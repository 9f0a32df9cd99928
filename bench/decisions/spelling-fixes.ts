/**
 * How the spelling fix reads typos: for each question of a known-answer file, its longest word of
 * 6+ letters gets one typo (as `typos.ts` makes it, `TYPO` = swap, drop, stray or double), and a
 * keyword search reports what it read the typo as. Prints, per value of a spelling default, how many
 * typos were fixed and how many to the word meant (docs/decisions/spelling.md).
 *
 * @example
 * ```sh
 * npm run build
 * TYPO=drop npx tsx bench/decisions/spelling-fixes.ts ../shared/bench/til/questions.jsonl /tmp/til dropCost=0,1,2
 * # the rule by edits first (the most passages breaking ties): a high edit cost and no drop cost
 * npx tsx bench/decisions/spelling-fixes.ts ../shared/bench/til/questions.jsonl /tmp/til dropCost=0 editCost=100
 * ```
 */
import { openVault, readKnownAnswers, SPELLING_DEFAULTS } from "../../dist/advanced.js";

const typos: Record<string, (w: string) => string> = {
  swap: (w) => (w[2] === w[3] ? w : w.slice(0, 2) + w[3] + w[2] + w.slice(4)),
  drop: (w) => w.slice(0, 3) + w.slice(4),
  stray: (w) => w.slice(0, 4) + String.fromCharCode(((w.charCodeAt(3) - 96) % 26) + 97) + w.slice(4),
  double: (w) => w.slice(0, 4) + w[3] + w.slice(4),
};
const kind = process.env.TYPO ?? "swap";
const typo = typos[kind];
const [file, vault, ...settings] = process.argv.slice(2);
const grid = settings.at(-1);
if (!typo || !file || !vault || !grid?.includes("=")) {
  console.error(
    "usage: [TYPO=swap|drop|stray|double] spelling-fixes.ts <questions.jsonl> <vault> [<setting>=<v> …] <setting>=<v1,v2,…>",
  );
  process.exit(2);
}
const defaults = SPELLING_DEFAULTS as Record<string, number>;
for (const s of settings) {
  const key = s.split("=")[0];
  if (typeof defaults[key] !== "number") {
    console.error(`spelling-fixes.ts: "${key}" is not a numeric spelling default`);
    process.exit(2);
  }
}
// the settings before the last are fixed; the last is the grid
for (const s of settings.slice(0, -1)) defaults[s.split("=")[0]] = Number(s.split("=")[1]);
const [key, list] = grid.split("=");
const notes = await openVault(vault);
const cases = readKnownAnswers(file).queries.flatMap((q) => {
  const w = [...(q.text.match(/\b[a-z]{6,}\b/g) ?? [])].sort((a, b) => b.length - a.length || (a < b ? -1 : 1))[0];
  const typed = w && typo(w);
  return w && typed !== w ? [{ question: q.text.replace(w, typed), typed, meant: w }] : [];
});
for (const value of list.split(",").map(Number)) {
  defaults[key] = value;
  let fixed = 0;
  let right = 0;
  const wrong: string[] = [];
  for (const c of cases) {
    const { spelling } = await notes.search(c.question, { mode: "keyword" });
    const fix = spelling?.find((f) => f.from === c.typed);
    if (!fix) continue;
    fixed++;
    if (fix.to === c.meant) right++;
    else wrong.push(`${c.typed} → ${fix.to} (${c.meant})`);
  }
  console.log(`${kind} ${key} ${value}: ${cases.length} typos, ${fixed} fixed, ${right} to the word meant`);
  for (const w of wrong) console.log(`  ${w}`);
}
await notes.close();
