/** An attachment read as `get_note` reads a note: its passages from the index, with their pages. */
import { VaultRagError } from "../errors.js";
import type { Store } from "../store/index.js";
import { fileTypeOf } from "../vault/attachments/types.js";
import { GET_NOTE_MAX_CHARS } from "../vault/limits.js";

/** One passage of an attachment as {@link attachmentNote} gives it. */
export interface AttachmentPassage {
  /** Its breadcrumb: `LP-200 Label Printer Manual > Cleaning the print head > p. 3`. */
  section: string;
  /** The PDF page it is on, from 1; absent for a board's card or a Word document's passage. */
  page?: number;
  text: string;
}

/** What `note()` gives for an attachment: its text, and its passages with their pages. */
export interface AttachmentNote {
  path: string;
  /** The passages, each under its breadcrumb (a PDF's under `## p. N`), cut as a note's text is cut. */
  text: string;
  /** `pdf`, `canvas` or `docx`. */
  file_type: string;
  passages: AttachmentPassage[];
}

/**
 * The attachment a name means among the index's files, or undefined when it names none: its path
 * (`papers/manual.pdf`), or its file name with its extension when one attachment has it
 * (`manual.pdf`, in any case), as a wikilink to an attachment finds it.
 *
 * @example
 * ```ts
 * await attachmentNamed(store, "manual.pdf"); // "papers/manual.pdf"
 * await attachmentNamed(store, "SMARS");      // undefined
 * ```
 */
export async function attachmentNamed(store: Store, name: string): Promise<string | undefined> {
  const wanted = name
    .trim()
    .replace(/\\/g, "/")
    .replace(/^\.?\//, "");
  const type = fileTypeOf(wanted);
  if (!type || type === "note") return undefined;
  const held = await store.notes([wanted]);
  if (held.has(wanted)) return wanted;
  const base = (p: string) => p.slice(p.lastIndexOf("/") + 1).toLowerCase();
  const fits = [...(await store.notes()).keys()].filter(
    (p) => fileTypeOf(p) === type && (p.toLowerCase() === wanted.toLowerCase() || base(p) === base(wanted)),
  );
  return fits.length === 1 ? fits[0] : undefined;
}

/**
 * An attachment's text as the index holds it: its passages in order, each under its breadcrumb,
 * those of a PDF grouped by page under `## p. N`; with `heading`, only the passages whose
 * breadcrumb holds it (`Cleaning the print head`) or on that page (`p. 3`, `3`). An attachment that
 * could not be read holds no passage: `not_found`, saying so.
 *
 * @example
 * ```ts
 * const n = await attachmentNote(store, "papers/manual.pdf");
 * n.passages[0]; // { section: "Manual > Setup > p. 1", page: 1, text: "…" }
 * n.text;        // "## p. 1\n\nManual > Setup > p. 1\n…"
 * ```
 */
export async function attachmentNote(store: Store, path: string, heading?: string): Promise<AttachmentNote> {
  const records = await store.get({ path });
  const file_type = fileTypeOf(path) ?? "note";
  if (!records.length)
    throw new VaultRagError(
      "not_found",
      `vault-rag: "${path}" holds no passage the index could read — \`status --verbose\` says why`,
    );
  let passages: AttachmentPassage[] = records.map((r) => ({
    section: r.meta.section,
    ...(r.meta.page ? { page: r.meta.page } : {}),
    text: r.text,
  }));
  if (heading !== undefined) {
    const page = /^\s*(?:p\.?\s*)?(\d+)\s*$/i.exec(heading);
    const key = heading.trim().toLowerCase();
    passages = passages.filter((p) =>
      page
        ? p.page === Number(page[1])
        : p.section
            .toLowerCase()
            .split(" > ")
            .some((s) => s === key),
    );
    if (!passages.length) throw new VaultRagError("not_found", `vault-rag: no heading "${heading}" in "${path}"`);
  }
  const parts: string[] = [];
  let page: number | undefined;
  for (const p of passages) {
    if (p.page && p.page !== page) parts.push(`## p. ${p.page}`);
    page = p.page;
    parts.push(`${p.section}\n${p.text}`);
  }
  return { path, text: cap(parts.join("\n\n")), file_type, passages };
}

/** The text cut at {@link GET_NOTE_MAX_CHARS}, with a mark, as a note's is. */
function cap(text: string): string {
  if (text.length <= GET_NOTE_MAX_CHARS) return text;
  const cut = text.lastIndexOf("\n", GET_NOTE_MAX_CHARS);
  const at = cut > GET_NOTE_MAX_CHARS * 0.8 ? cut : GET_NOTE_MAX_CHARS;
  return `${text.slice(0, at)}\n\n[truncated by vault-rag: showing ${at} of ${text.length} characters — ask for one page or section with "heading"]`;
}
