import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** The programs OCR takes, by the Debian package that holds each. */
export const OCR_TOOLS: Readonly<Record<string, string>> = { tesseract: "tesseract-ocr", pdftoppm: "poppler-utils" };

/** Resolution a page is drawn at for tesseract, in dots per inch (tesseract reads best at 300). */
const DPI = 300;

/**
 * The OCR programs (`tesseract`, and poppler's `pdftoppm`, which draws a PDF page as an image) that
 * are not on `PATH`; none missing means scanned pages can be read.
 *
 * @example
 * ```ts
 * ocrMissing(); // [] where `apt-get install tesseract-ocr poppler-utils` has run; else ["tesseract"]
 * ```
 */
export function ocrMissing(envPath = process.env.PATH ?? ""): string[] {
  const dirs = envPath.split(path.delimiter).filter(Boolean);
  return Object.keys(OCR_TOOLS).filter(
    (tool) =>
      !dirs.some((d) => {
        try {
          fs.accessSync(path.join(d, tool), fs.constants.X_OK);
          return fs.statSync(path.join(d, tool)).isFile();
        } catch {
          return false;
        }
      }),
  );
}

/**
 * Reads pages of a PDF by OCR: each page is drawn as a grey image by `pdftoppm` and read by
 * `tesseract` in its installed language data (English on Debian; nothing is downloaded), one
 * tesseract thread at a time. Gives each page's text, in the order asked, paragraphs a blank line
 * apart. A program that fails throws, with its message.
 *
 * @example
 * ```ts
 * await ocrPages(fs.readFileSync("scans/receipt.pdf"), [1]); // ["Scanned receipt 2024"]
 * ```
 */
export async function ocrPages(bytes: Uint8Array, pages: number[]): Promise<string[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vault-rag-ocr-"));
  try {
    const pdf = path.join(dir, "in.pdf");
    fs.writeFileSync(pdf, bytes);
    const out: string[] = [];
    for (const page of pages) {
      const image = path.join(dir, `p${page}`);
      const n = String(page);
      await run("pdftoppm", ["-r", String(DPI), "-gray", "-png", "-f", n, "-l", n, "-singlefile", pdf, image]);
      // one thread: the indexer's other work shares the cores
      const { stdout } = await run("tesseract", [`${image}.png`, "stdout"], {
        env: { ...process.env, OMP_THREAD_LIMIT: "1" },
        maxBuffer: 16 << 20,
      });
      out.push(ocrText(stdout));
      fs.rmSync(`${image}.png`, { force: true });
    }
    return out;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** tesseract's output as paragraphs: form feeds and trailing spaces dropped, at most one blank line. */
function ocrText(s: string): string {
  return s
    .replace(/\f/g, "")
    .replace(/[ \t]+\n/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
