/**
 * `npm run bench` (BENCH_ONLY=attachments): PDF extraction on a generated 300-page text PDF
 * ({@link textPdf}), in a process of its own: pages per second (reading and cutting into passages,
 * as `index` does), the process's peak RSS, beside that of a process that only loads the code, and
 * the longest the main thread's event loop was held meanwhile; read on the reading thread
 * (`readAttachmentOffThread`, as `index` and `watch` read) and on the main thread (`readAttachment`).
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { textPdf } from "./pdf-gen.js";

/** What the child prints: seconds, pages, passages, peak RSS in kB, the event loop's longest delay in ms. */
interface Figures {
  seconds: number;
  pages: number;
  passages: number;
  maxRssKb: number;
  heldMs: number;
}

/**
 * A child that reads (on the reading thread, or `here`) and cuts `file`, or only loads the code
 * with no file, and prints its {@link Figures}.
 */
function measure(root: string, vault: string, file?: string, here = false): Figures {
  const dist = (p: string) => JSON.stringify(path.join(root, "dist", p));
  const read = here ? "readAttachment" : "readAttachmentOffThread";
  const script = `
    const { ${read}, walkVault } = await import(${dist("vault/index.js")});
    const { chunkAttachment } = await import(${dist("chunk/index.js")});
    const t0 = performance.now();
    let pages = 0, passages = 0, heldMs = 0;
    const f = ${file ? `walkVault(${JSON.stringify(vault)}).find((x) => x.path === ${JSON.stringify(file)})` : "undefined"};
    if (f) {
      // the longest the event loop went without a turn while the file was read: a 5 ms ticker's longest gap
      let last = performance.now();
      const tick = setInterval(() => { heldMs = Math.max(heldMs, performance.now() - last); last = performance.now(); }, 5);
      const r = await ${read}(f);
      heldMs = Math.max(heldMs, performance.now() - last);
      clearInterval(tick);
      if (!("attachment" in r)) throw new Error("not read: " + JSON.stringify(r.unreadable ?? r.error));
      pages = r.attachment.parts.length;
      passages = chunkAttachment(r.attachment).length;
    }
    const seconds = (performance.now() - t0) / 1000;
    console.log(JSON.stringify({ seconds, pages, passages, maxRssKb: process.resourceUsage().maxRSS, heldMs }));`;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  return JSON.parse(out.trim().split("\n").pop()!) as Figures;
}

/**
 * Measures PDF extraction and prints one line.
 *
 * @example
 * ```ts
 * await attachmentsBench({ root, work, line: console.log });
 * // attachments  300-page PDF (1.3 MB, generated), reading thread: 184 pages/s (1.6 s), 1200 passages; peak RSS 161 MB (code alone: 59 MB); event loop held ≤ 105 ms
 * // attachments  300-page PDF (1.3 MB, generated), main thread: 167 pages/s (1.8 s), 1200 passages; peak RSS 132 MB (code alone: 59 MB); event loop held ≤ 1901 ms
 * ```
 */
export async function attachmentsBench(o: { root: string; work: string; line: (s: string) => void }): Promise<void> {
  const vault = path.join(o.work, "pdf-vault");
  fs.mkdirSync(vault, { recursive: true });
  const pdf = textPdf(300);
  fs.writeFileSync(path.join(vault, "big.pdf"), pdf);
  const base = measure(o.root, vault);
  for (const here of [false, true]) {
    const runs = [measure(o.root, vault, "big.pdf", here), measure(o.root, vault, "big.pdf", here)];
    const best = runs.sort((a, b) => a.seconds - b.seconds)[0];
    const peak = Math.max(...runs.map((r) => r.maxRssKb));
    const held = Math.max(...runs.map((r) => r.heldMs));
    o.line(
      `attachments  ${best.pages}-page PDF (${(pdf.length / 1e6).toFixed(1)} MB, generated), ${here ? "main thread" : "reading thread"}: ${Math.round(best.pages / best.seconds)} pages/s (${best.seconds.toFixed(1)} s), ${best.passages} passages; peak RSS ${Math.round(peak / 1024)} MB (code alone: ${Math.round(base.maxRssKb / 1024)} MB); event loop held ≤ ${Math.round(held)} ms`,
    );
  }
}
