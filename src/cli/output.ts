import type { FlatHit } from "../library.js";
import { highlightTerms, printable, snippet, termPattern } from "../shared/snippet-text.js";
import { paint as makePaint, type Paint } from "./color.js";
import { osc8 } from "./hyperlink.js";
import { lineOf } from "../shared/place.js";

/** What a hit shows: a handle's search hit, or an answer's source hit. */
type ShownHit = Pick<
  FlatHit,
  "path" | "label" | "text" | "score" | "distance" | "ranks" | "named" | "reranked" | "lead"
> & {
  meta: { start_line: number; page?: number };
};

/** Options of {@link formatHits}. */
export interface FormatOptions {
  /** The query, whose words are highlighted in the snippets. */
  query?: string;
  /** Colour (default: none). */
  color?: boolean;
  /** Also print each hit's score and distance, and a hybrid hit's place in each list. */
  verbose?: boolean;
  /** Number the hits `[1]`, `[2]`… (chat, where they are the sources). */
  numbered?: boolean;
  /** Make each `path:line` an OSC 8 link to this URL (see `hyperlink.ts`); only on a terminal with colour. */
  link?: (notePath: string) => string;
}

/**
 * A hybrid hit's place in each list, as `--verbose` shows it: `; dense #3, keyword #1` (`keyword –`
 * for none); a reranked hit's place before and after the reranker, `; reranked #7 → #1 (4.210)`;
 * and why a hit the query names ranks above its lists' places.
 */
function ranksOf(h: ShownHit): string {
  const at = (n?: number) => (n === undefined ? "–" : `#${n}`);
  const lists = h.ranks ? `; dense ${at(h.ranks.dense)}, keyword ${at(h.ranks.keyword)}` : "";
  const r = h.reranked;
  const reranked = r ? `; reranked #${r.before} → #${r.after} (${Number(r.score.toPrecision(4))})` : "";
  return h.named ? `${lists}${reranked}; moved up: the query is this note's name` : lists + reranked;
}

/**
 * Human output of hits, in ripgrep's convention: `path:line` first (clickable in most terminals and
 * editors), then the breadcrumb, then a one-line snippet with the query's words marked. Colour only
 * when asked (see {@link useColor}). The score is shown only with `verbose`: it is relative to the
 * candidates of one search and reads as nothing on its own.
 *
 * @example
 * ```ts
 * formatHits(hits, { query: "motor driver" });
 * // robots/SMARS.md:12  SMARS Robot > SMARS > Motors
 * //     The SMARS uses two N20 geared micro motors, one per track…
 * ```
 */
export function formatHits(hits: ShownHit[], opts: FormatOptions = {}): string {
  const p: Paint = makePaint(!!opts.color);
  const pattern = opts.query ? termPattern(highlightTerms(opts.query)) : undefined;
  const mark = (s: string) => (pattern && p.on ? s.replace(pattern, (m) => p.match(m)) : s);
  return hits
    .map((h, i) => {
      const at = `${p.path(printable(h.path))}:${p.line(lineOf({ path: h.path, ...h.meta }))}`;
      const where = opts.link ? osc8(opts.link(h.path), at) : at;
      const score = opts.verbose
        ? `  ${p.dim(`score ${h.score.toFixed(3)}, distance ${h.distance.toFixed(3)}${ranksOf(h)}`)}`
        : "";
      return `${opts.numbered ? `[${i + 1}] ` : ""}${where}  ${p.label(printable(h.label))}${score}\n    ${mark(snippet(h.text, 100, { pattern, fallback: h.label, lead: h.lead }))}`;
    })
    .join("\n");
}
