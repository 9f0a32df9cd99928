import type { AttachmentPart, Unreadable } from "./types.js";

/**
 * Reads a Word document (`.docx`) with mammoth (loaded on the first one only) as Markdown: its
 * headings as `#` lines, so that they are the passages' headings; paragraphs, list items and table
 * cells as paragraphs. One part, cut into passages as a note is. Returns why not when mammoth cannot
 * read it (an encrypted document is no zip: `damaged`, with mammoth's message).
 *
 * @example
 * ```ts
 * const r = await readDocx(fs.readFileSync("work/Compost.docx"));
 * if ("parts" in r) r.parts[0].text; // "# Hot composting\n\nA hot compost heap needs …"
 * ```
 */
export async function readDocx(bytes: Uint8Array): Promise<{ parts: AttachmentPart[] } | Unreadable> {
  const mammoth = (await import("mammoth")).default;
  let html: string;
  try {
    html = (await mammoth.convertToHtml({ buffer: Buffer.from(bytes) })).value;
  } catch (err) {
    return { reason: "damaged", detail: String((err as Error)?.message ?? err).split("\n")[0] };
  }
  const text = htmlToMarkdown(html);
  return { parts: text.trim() ? [{ trail: [], text }] : [] };
}

/**
 * mammoth's HTML as Markdown blocks: `<h1>`–`<h6>` as `#` headings, `<li>` as `- ` items, every
 * other block (`<p>`, a table cell) as a paragraph; inline tags dropped, entities decoded.
 *
 * @example
 * ```ts
 * htmlToMarkdown("<h2>Turning</h2><p>Turn it &amp; wait.</p>"); // "## Turning\n\nTurn it & wait."
 * ```
 */
export function htmlToMarkdown(html: string): string {
  const blocks: string[] = [];
  const re = /<(h[1-6]|p|li|td|th)\b[^>]*>([\s\S]*?)<\/\1>/g;
  for (let m = re.exec(html); m; m = re.exec(html)) {
    const inner = decode(m[2].replace(/<br\s*\/?>/g, "\n").replace(/<[^>]+>/g, ""))
      .replace(/[ \t]+/g, " ")
      .trim();
    if (!inner) continue;
    const tag = m[1];
    if (tag[0] === "h" && tag !== "th") blocks.push(`${"#".repeat(Number(tag[1]))} ${inner.replace(/\n/g, " ")}`);
    else if (tag === "li") blocks.push(`- ${inner}`);
    else blocks.push(inner);
  }
  return blocks.join("\n\n");
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

/** HTML's character references as characters. */
function decode(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (all, e: string) => {
    if (e[0] === "#")
      return String.fromCodePoint(e[1] === "x" || e[1] === "X" ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
    return ENTITIES[e.toLowerCase()] ?? all;
  });
}
