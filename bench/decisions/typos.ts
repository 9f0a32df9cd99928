/**
 * A typo'd copy of a known-answer file: in each question the longest word of 6+ letters has its
 * 3rd and 4th letters swapped (the first letter kept, as in most typos). `vault-rag eval <copy>
 * --vault <vault> --sweep` then compares "hybrid" with "hybrid, no spelling fixes"
 * (docs/decisions/spelling.md).
 *
 * @example
 * ```sh
 * npx tsx bench/decisions/typos.ts ../shared/bench/til/questions.jsonl > /tmp/til-typos.jsonl
 * ```
 */
import fs from "node:fs";

const [file] = process.argv.slice(2);
for (const line of fs.readFileSync(file, "utf8").split("\n")) {
  if (!line.trim()) continue;
  const q = JSON.parse(line) as { question: string };
  const words = q.question.match(/\b[a-z]{6,}\b/g) ?? [];
  const w = [...words].sort((a, b) => b.length - a.length || (a < b ? -1 : 1))[0];
  if (w && w[2] !== w[3]) q.question = q.question.replace(w, w.slice(0, 2) + w[3] + w[2] + w.slice(4));
  console.log(JSON.stringify(q));
}
