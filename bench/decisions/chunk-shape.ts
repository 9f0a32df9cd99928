/**
 * Chunk shape on real vaults: the median size of chunks in notes over 80 words, the share of prose
 * chunks that end mid-sentence where the chunker cut inside a paragraph, and chunks holding only a
 * heading. Reads the built package (`npm run build` first).
 *
 * @example
 * ```sh
 * npx tsx bench/decisions/chunk-shape.ts ../shared/bench/til/vault examples/vault
 * ```
 */
import { chunkNote, prepareBeir, readNote, walkVault } from "../../dist/advanced.js";
import { countWords } from "../../dist/chunk/index.js";
import fs from "node:fs";
import path from "node:path";

const SENTENCE_END = /[.!?:;)"'`\]*_>…。]$/;
const BLOCK_START = /^\s*(#|[-*+] |\d+[.)] |\||>|```|~~~)/;

for (const arg of process.argv.slice(2)) {
  // a BEIR folder is read as the notes eval writes for it
  const dir = fs.existsSync(path.join(arg, "corpus.jsonl")) ? prepareBeir(arg).vault : arg;
  const sizes: number[] = [];
  let all = 0;
  let prose = 0;
  let cutMid = 0;
  let bare = 0;
  for (const f of walkVault(dir)) {
    const n = readNote(f);
    if (!n) continue;
    const long = countWords(n.body) > 80;
    const chunks = chunkNote(n);
    const lines = n.body.split("\n");
    chunks.forEach((c, i) => {
      all++;
      if (long) sizes.push(c.meta.word_count);
      if (c.text.replace(/^#{1,6} .*$/gm, "").trim() === "") bare++;
      const own = c.text.trimEnd().split("\n");
      const last = own[own.length - 1].trim();
      const fences = (c.text.match(/^\s*(```|~~~)/gm) ?? []).length;
      if (!last || BLOCK_START.test(last) || /^!\[|^</.test(last) || fences % 2 === 1) return;
      prose++;
      // cut inside a paragraph: the next chunk goes on in the same line, or in the very next line of the same block
      const next = chunks[i + 1];
      const after = lines[c.meta.end_line - n.bodyStartLine + 1] ?? "";
      const inside =
        !!next &&
        (next.meta.start_line <= c.meta.end_line ||
          (next.meta.start_line === c.meta.end_line + 1 && after.trim() !== "" && !BLOCK_START.test(after)));
      if (inside && !SENTENCE_END.test(last)) cutMid++;
    });
  }
  sizes.sort((a, b) => a - b);
  console.log(
    `${arg}: ${all} chunks; in notes over 80 words median ${sizes[sizes.length >> 1] ?? 0} words (${sizes.length} chunks); ` +
      `prose chunks cut mid-sentence ${cutMid} of ${prose} (${((100 * cutMid) / (prose || 1)).toFixed(2)}%); heading-only ${bare}`,
  );
}
