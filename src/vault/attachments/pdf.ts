import type { AttachmentPart, Unreadable } from "./types.js";

/** What {@link readPdf} gives: the PDF's metadata title, when it has one, and its pages' text. */
export interface PdfText {
  title?: string;
  /** One part a page that holds text, in page order. */
  parts: AttachmentPart[];
  /** Pages in the file. */
  pages: number;
}

/** The part of a pdf.js document {@link readPdf} reads (unpdf's bundled pdf.js). */
interface PdfDoc {
  numPages: number;
  getPage(n: number): Promise<{
    getTextContent(): Promise<{ items: { str?: string; hasEOL?: boolean; transform?: number[]; height?: number }[] }>;
    cleanup(): void;
  }>;
  getOutline(): Promise<OutlineItem[] | null>;
  getMetadata(): Promise<{ info?: Record<string, unknown> } | null>;
  getDestination(name: string): Promise<unknown[] | null>;
  getPageIndex(ref: unknown): Promise<number>;
  destroy?(): Promise<void>;
  cleanup?(): Promise<void>;
}

interface OutlineItem {
  title: string;
  dest: string | unknown[] | null;
  items: OutlineItem[];
}

/**
 * Reads a PDF's text page by page with pdf.js (through `unpdf`, loaded on the first PDF only), with
 * its metadata title and its outline (bookmarks) as each page's headings: a page's trail is the
 * outline entry it falls under, with the entries above that one. A page is read within the time
 * left (`deadline`, from `performance.now()`); the event loop takes a turn between pages. With
 * `ocr`, the pages with no text layer are given to it (see `ocrPages`), and the text it reads is
 * theirs. Returns why not when it is encrypted, damaged, has no text at all (`scanned`), or runs
 * out of time.
 *
 * @example
 * ```ts
 * const r = await readPdf(fs.readFileSync("papers/attention.pdf"));
 * if ("parts" in r) r.parts[13]; // { page: 14, trail: ["3 Model Architecture"], text: "…" }
 * ```
 */
export async function readPdf(
  bytes: Uint8Array,
  deadline = Infinity,
  ocr?: (pages: number[]) => Promise<string[]>,
): Promise<PdfText | Unreadable> {
  const { getDocumentProxy } = await import("unpdf");
  let doc: PdfDoc;
  try {
    // a copy: pdf.js takes over the buffer it is given
    doc = (await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 })) as unknown as PdfDoc;
  } catch (err) {
    const e = err as Error;
    if (e?.name === "PasswordException") return { reason: "encrypted" };
    return { reason: "damaged", detail: firstLine(e) };
  }
  try {
    const trails = await outlineTrails(doc);
    const parts: AttachmentPart[] = [];
    const blank: number[] = [];
    for (let n = 1; n <= doc.numPages; n++) {
      if (performance.now() > deadline) return { reason: "timeout" };
      const page = await doc.getPage(n);
      const text = pageText((await page.getTextContent()).items);
      page.cleanup();
      if (text.trim()) parts.push({ page: n, trail: trailAt(trails, n), text });
      else blank.push(n);
    }
    if (ocr && blank.length) {
      const read = await ocr(blank);
      blank.forEach((n, i) => read[i]?.trim() && parts.push({ page: n, trail: trailAt(trails, n), text: read[i] }));
      parts.sort((a, b) => a.page! - b.page!);
    }
    if (!parts.length) return { reason: "scanned" };
    const info = (await doc.getMetadata().catch(() => null))?.info;
    const title = typeof info?.Title === "string" && info.Title.trim() ? info.Title.trim() : undefined;
    return { title, parts, pages: doc.numPages };
  } catch (err) {
    return { reason: "damaged", detail: firstLine(err as Error) };
  } finally {
    await (doc.destroy ?? doc.cleanup)?.call(doc).catch(() => undefined);
  }
}

/** An error's first line, for a reason shown on one line. */
function firstLine(e: Error | undefined): string {
  return String(e?.message ?? e).split("\n")[0];
}

/**
 * A page's text items as lines and paragraphs: a line ends where pdf.js says (`hasEOL`) or where the
 * next item stands lower; a gap of more than 1.5 lines starts a paragraph (a blank line).
 */
function pageText(items: { str?: string; hasEOL?: boolean; transform?: number[]; height?: number }[]): string {
  let out = "";
  let lastY: number | undefined;
  let lineGap = 0;
  for (const it of items) {
    const y = it.transform?.[5];
    if (y !== undefined && lastY !== undefined && Math.abs(lastY - y) > 0.5) {
      const gap = Math.abs(lastY - y);
      const size = it.height || 10;
      // a gap well over a line's, or over the usual gap between this page's lines: a paragraph
      const para = gap > size * 1.5 && (!lineGap || gap > lineGap * 1.3);
      if (!para) lineGap = lineGap ? Math.min(lineGap, gap) : gap;
      out = out.replace(/[ \t]+$/, "") + (para ? "\n\n" : out.endsWith("\n") ? "" : "\n");
    }
    if (it.str) out += it.str;
    if (it.hasEOL && !out.endsWith("\n")) out += "\n";
    if (y !== undefined && it.str) lastY = y;
  }
  return out
    .replace(/[ \t]+\n/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/** Each outline entry's page (from 1) with its trail of titles, in page order. */
async function outlineTrails(doc: PdfDoc): Promise<{ page: number; trail: string[] }[]> {
  const outline = await doc.getOutline().catch(() => null);
  if (!outline?.length) return [];
  const out: { page: number; trail: string[]; order: number }[] = [];
  const visit = async (items: OutlineItem[], above: string[]) => {
    for (const item of items) {
      const title = item.title.replace(/\s+/g, " ").trim();
      const trail = title ? [...above, title] : above;
      const page = await destPage(doc, item.dest);
      if (page && title) out.push({ page, trail, order: out.length });
      if (item.items?.length) await visit(item.items, trail);
    }
  };
  await visit(outline, []);
  return out.sort((a, b) => a.page - b.page || a.order - b.order);
}

/** The page (from 1) an outline entry's destination points to, or 0. */
async function destPage(doc: PdfDoc, dest: OutlineItem["dest"]): Promise<number> {
  try {
    const explicit = typeof dest === "string" ? await doc.getDestination(dest) : dest;
    if (!Array.isArray(explicit) || !explicit.length) return 0;
    const ref = explicit[0];
    return typeof ref === "number" ? ref + 1 : (await doc.getPageIndex(ref)) + 1;
  } catch {
    return 0;
  }
}

/** The trail of the last outline entry at or before a page ([] before the first). */
function trailAt(trails: { page: number; trail: string[] }[], page: number): string[] {
  let trail: string[] = [];
  for (const t of trails) {
    if (t.page > page) break;
    trail = t.trail;
  }
  return trail;
}
