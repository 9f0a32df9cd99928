/**
 * A typo'd copy of a known-answer file: in each question the longest word of 6+ letters gets one
 * typo, the first letter kept, as in most typos. `TYPO` chooses it: `swap` (the default) swaps the
 * 3rd and 4th letters, `drop` leaves out the 4th, `stray` adds a letter after the 4th (the letter
 * after it in the alphabet), `double` types the 4th twice. `vault-rag eval <copy> --vault <vault>
 * --sweep` then compares "hybrid" with "hybrid, no spelling fixes" (docs/decisions/spelling.md).
 *
 * @example
 * ```sh
 * npx tsx bench/decisions/typos.ts ../shared/bench/til/questions.jsonl > /tmp/til-typos.jsonl
 * TYPO=drop npx tsx bench/decisions/typos.ts ../shared/bench/til/questions.jsonl > /tmp/til-drops.jsonl
 * ```
 */
import fs from "node:fs";

const typos: Record<string, (w: string) => string> = {
  swap: (w) => (w[2] === w[3] ? w : w.slice(0, 2) + w[3] + w[2] + w.slice(4)),
  drop: (w) => w.slice(0, 3) + w.slice(4),
  stray: (w) => w.slice(0, 4) + String.fromCharCode(((w.charCodeAt(3) - 96) % 26) + 97) + w.slice(4),
  double: (w) => w.slice(0, 4) + w[3] + w.slice(4),
};
const typo = typos[process.env.TYPO ?? "swap"];
if (!typo) throw new Error(`TYPO must be one of ${Object.keys(typos).join(", ")}`);

const [file] = process.argv.slice(2);
for (const line of fs.readFileSync(file, "utf8").split("\n")) {
  if (!line.trim()) continue;
  const q = JSON.parse(line) as { question: string };
  const words = q.question.match(/\b[a-z]{6,}\b/g) ?? [];
  const w = [...words].sort((a, b) => b.length - a.length || (a < b ? -1 : 1))[0];
  if (w) q.question = q.question.replace(w, typo(w));
  console.log(JSON.stringify(q));
}
