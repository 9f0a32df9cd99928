import type { RecordMetadata } from "../store/index.js";
import type { HitJson } from "../shared/api.js";
import type { Hit } from "./types.js";

export type { HitJson } from "../shared/api.js";

/**
 * A hit in the one JSON shape every interface returns: flat, snake_case, the fields a filter can name.
 *
 * @example
 * ```ts
 * const { hits } = await notes.search("motor driver");
 * hitJson(hits[0]);
 * // { id: "…", path: "reference/parts.md", title: "Parts drawer", section: "Parts drawer > Motor drivers · Microcontrollers · Sensors · Power",
 * //   label: "…", text: "…", score: 1, distance: 0, start_line: 6, end_line: 30, tags: ["reference", "electronics"],
 * //   folder: "reference", top_folder: "reference", mtime: 1796113092, date: 1796113092, props: {} }
 * ```
 */
export function hitJson(h: Hit): HitJson {
  return {
    id: h.id,
    path: h.path,
    title: h.title,
    section: h.section,
    label: h.label,
    text: h.text,
    score: Number(h.score.toFixed(4)),
    distance: Number(h.distance.toFixed(6)),
    start_line: h.meta.start_line,
    end_line: h.meta.end_line,
    tags: h.meta.tags,
    folder: h.meta.folder,
    top_folder: h.meta.top_folder,
    mtime: h.meta.mtime,
    date: h.meta.date,
    props: h.meta.props,
    ...(h.lead ? { lead: h.lead } : {}),
    ...(h.backlinked ? { backlinked: true as const } : {}),
    ...(h.meta.file_type && h.meta.file_type !== "note" ? { file_type: h.meta.file_type } : {}),
    ...(h.meta.page ? { page: h.meta.page } : {}),
  };
}

/**
 * A hit as a vault handle's `search()` returns it: the one JSON shape ({@link HitJson}, so
 * `JSON.stringify`, spreading and deep equality give exactly what the CLI's `--json` and MCP give),
 * plus the record's full metadata under `meta`, which is not enumerable and so stays out of all
 * three. It is also a {@link Hit}, so code written for the nested shape (`hit.meta.start_line`) works.
 */
export type FlatHit = HitJson & {
  readonly meta: RecordMetadata;
  /** The hit's place in each list, as `--verbose` shows it (not enumerable). */
  readonly ranks?: Hit["ranks"];
  /** The query is this note's name (not enumerable). */
  readonly named?: Hit["named"];
  /** A reranked hit's place before and after the reranker, and its score (not enumerable). */
  readonly reranked?: Hit["reranked"];
};

/**
 * Turns a hit into a {@link FlatHit}.
 *
 * @example
 * ```ts
 * const { hits } = await search(ctx, "motor driver");
 * const h = flatHit(hits[0]);
 * h.start_line === h.meta.start_line; // true
 * JSON.stringify(h) === JSON.stringify(hitJson(hits[0])); // true
 * ```
 */
export function flatHit(h: Hit): FlatHit {
  const flat = Object.defineProperty(hitJson(h), "meta", { value: h.meta, enumerable: false });
  if (h.ranks) Object.defineProperty(flat, "ranks", { value: h.ranks, enumerable: false });
  if (h.named) Object.defineProperty(flat, "named", { value: h.named, enumerable: false });
  if (h.reranked) Object.defineProperty(flat, "reranked", { value: h.reranked, enumerable: false });
  return flat as FlatHit;
}
