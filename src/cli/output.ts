import type { Hit } from "../search/index.js";

/** One-line snippet of a chunk's text, without the heading line. */
export function snippet(text: string, width = 100): string {
  const body = text.replace(/^(\s*#{1,6}\s[^\n]*(\n+|$))+/, "").replace(/\s+/g, " ").trim();
  return body.length > width ? body.slice(0, width - 1) + "…" : body;
}

/**
 * Human output of hits, as in the seed documents:
 * `[1] SMARS Robot > Motor wiring  (52%)  robots/SMARS.md` and an indented snippet.
 */
export function formatHits(hits: Hit[]): string {
  return hits.map((h, i) => `[${i + 1}] ${h.label}  (${Math.round(h.score * 100)}%)  ${h.path}\n    ${snippet(h.text)}`).join("\n");
}

/** JSON shape of a hit. */
export function hitJson(h: Hit) {
  return {
    id: h.id,
    path: h.path,
    title: h.title,
    section: h.section,
    label: h.label,
    score: Number(h.score.toFixed(4)),
    distance: Number(h.distance.toFixed(6)),
    text: h.text,
    tags: h.meta.tags,
    folder: h.meta.folder,
    top_folder: h.meta.top_folder,
    mtime: h.meta.mtime,
    start_line: h.meta.start_line,
    end_line: h.meta.end_line,
  };
}
