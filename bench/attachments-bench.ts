/**
 * `npm run bench` (BENCH_ONLY=attachments): PDF extraction on a generated 300-page text PDF
 * ({@link textPdf}), in a process of its own: pages per second (reading and cutting into passages,
 * as `index` does) and the process's peak RSS, beside that of a process that only loads the code.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { textPdf } from "./pdf-gen.js";

/** What the child prints: seconds, pages, passages, peak RSS in kB. */
interface Figures {
  seconds: number;
  pages: number;
  passages: number;
  maxRssKb: number;
}

/** A child that reads and cuts `file` (or only loads the code, with no file) and prints its {@link Figures}. */
function measure(root: string, vault: string, file?: string): Figures {
  const dist = (p: string) => JSON.stringify(path.join(root, "dist", p));
  const script = `
    const { readAttachment, walkVault } = await import(${dist("vault/index.js")});
    const { chunkAttachment } = await import(${dist("chunk/index.js")});
    const t0 = performance.now();
    let pages = 0, passages = 0;
    const f = ${file ? `walkVault(${JSON.stringify(vault)}).find((x) => x.path === ${JSON.stringify(file)})` : "undefined"};
    if (f) {
      const r = await readAttachment(f);
      if (!("attachment" in r)) throw new Error("not read: " + JSON.stringify(r.unreadable ?? r.error));
      pages = r.attachment.parts.length;
      passages = chunkAttachment(r.attachment).length;
    }
    const seconds = (performance.now() - t0) / 1000;
    console.log(JSON.stringify({ seconds, pages, passages, maxRssKb: process.resourceUsage().maxRSS }));`;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  return JSON.parse(out.trim().split("\n").pop()!) as Figures;
}

/**
 * Measures PDF extraction and prints one line.
 *
 * @example
 * ```ts
 * await attachmentsBench({ root, work, line: console.log });
 * // attachments  300-page PDF (1.3 MB, generated): 112 pages/s (2.7 s), 300 passages; peak RSS 181 MB (code alone: 80 MB)
 * ```
 */
export async function attachmentsBench(o: { root: string; work: string; line: (s: string) => void }): Promise<void> {
  const vault = path.join(o.work, "pdf-vault");
  fs.mkdirSync(vault, { recursive: true });
  const pdf = textPdf(300);
  fs.writeFileSync(path.join(vault, "big.pdf"), pdf);
  const base = measure(o.root, vault);
  const runs = [measure(o.root, vault, "big.pdf"), measure(o.root, vault, "big.pdf")];
  const best = runs.sort((a, b) => a.seconds - b.seconds)[0];
  const peak = Math.max(...runs.map((r) => r.maxRssKb));
  o.line(
    `attachments  ${best.pages}-page PDF (${(pdf.length / 1e6).toFixed(1)} MB, generated): ${Math.round(best.pages / best.seconds)} pages/s (${best.seconds.toFixed(1)} s), ${best.passages} passages; peak RSS ${Math.round(peak / 1024)} MB (code alone: ${Math.round(base.maxRssKb / 1024)} MB)`,
  );
}
