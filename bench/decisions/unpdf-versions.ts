/**
 * Pages per second of one unpdf build on one PDF: each page's `getTextContent`, as `readPdf` reads
 * it, in this process. Run it in turn for two unpacked unpdf packages (`npm pack unpdf@<v>`, then
 * `tar xzf`) to compare versions under the same load. Reproduces the table of
 * docs/decisions/attachments.md (unpdf 1.7.0, not 1.8).
 *
 * @example
 * ```sh
 * npx tsx -e 'import fs from "node:fs"; import { textPdf } from "./bench/pdf-gen.ts"; fs.writeFileSync("/tmp/big.pdf", textPdf(300));'
 * for i in 1 2 3; do for v in /tmp/u181/package /tmp/u170/package; do
 *   npx tsx bench/decisions/unpdf-versions.ts $v /tmp/big.pdf; done; done
 * # unpdf 1.8.1: 143 pages/s (300 pages)
 * ```
 */
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [dir, pdf] = process.argv.slice(2);
if (!dir || !pdf) {
  console.error("usage: unpdf-versions.ts <unpacked unpdf package folder> <file.pdf>");
  process.exit(2);
}
const { version } = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as { version: string };
const { getDocumentProxy } = (await import(pathToFileURL(path.join(dir, "dist/index.mjs")).href)) as {
  getDocumentProxy: (data: Uint8Array) => Promise<{
    numPages: number;
    getPage(n: number): Promise<{ getTextContent(): Promise<unknown>; cleanup(): void }>;
  }>;
};
const t0 = performance.now();
const doc = await getDocumentProxy(new Uint8Array(fs.readFileSync(pdf)));
for (let n = 1; n <= doc.numPages; n++) {
  const page = await doc.getPage(n);
  await page.getTextContent();
  page.cleanup();
}
const seconds = (performance.now() - t0) / 1000;
console.log(`unpdf ${version}: ${Math.round(doc.numPages / seconds)} pages/s (${doc.numPages} pages)`);
