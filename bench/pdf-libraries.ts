/**
 * The measurement behind docs/decisions/attachments.md: text extraction of one PDF by unpdf and by
 * pdfjs-dist, in a process of its own each. pdfjs-dist is no dependency: install it first,
 * `npm install --no-save pdfjs-dist@6.5.438`, then
 * `npx tsx bench/pdf-libraries.ts unpdf|pdfjs <file.pdf>` (or no file: a generated 300-page PDF).
 */
import fs from "node:fs";
import { textPdf } from "./pdf-gen.js";

interface Doc {
  numPages: number;
  getPage(n: number): Promise<{ getTextContent(): Promise<{ items: { str?: string }[] }>; cleanup(): void }>;
  getOutline(): Promise<unknown[] | null>;
}

const [lib, file] = process.argv.slice(2);
const data = new Uint8Array(file ? fs.readFileSync(file) : textPdf(300));
const t0 = performance.now();
let doc: Doc;
if (lib === "unpdf") {
  const { getDocumentProxy } = await import("unpdf");
  doc = (await getDocumentProxy(data)) as unknown as Doc;
} else {
  // pdfjs-dist 6 calls Promise.withResolvers, which Node 20 lacks
  const P = Promise as unknown as { withResolvers?: () => unknown };
  P.withResolvers ??= () => {
    let resolve, reject;
    const promise = new Promise((a, b) => ([resolve, reject] = [a, b]));
    return { promise, resolve, reject };
  };
  const name = "pdfjs-dist/legacy/build/pdf.mjs";
  const pdfjs = (await import(name)) as { getDocument(o: object): { promise: Promise<Doc> } };
  doc = await pdfjs.getDocument({ data, verbosity: 0 }).promise;
}
let chars = 0;
let peak = 0;
for (let n = 1; n <= doc.numPages; n++) {
  const page = await doc.getPage(n);
  chars += (await page.getTextContent()).items.map((x) => x.str ?? "").join("").length;
  page.cleanup();
  peak = Math.max(peak, process.memoryUsage().rss);
}
const outline = (await doc.getOutline())?.length ?? 0;
const s = (performance.now() - t0) / 1000;
console.log(
  `${lib}: ${doc.numPages} pages, ${chars} characters, ${outline} outline entries in ${s.toFixed(2)} s (${Math.round(doc.numPages / s)} pages/s, import included), peak RSS ${Math.round(peak / 1e6)} MB`,
);
