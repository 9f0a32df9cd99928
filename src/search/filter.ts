import { VaultRagError } from "../errors.js";
import { MTIME_MS_THRESHOLD, type Store, type Where } from "../store/index.js";
import { propClauses, propNames, propPairsNeedNames } from "./props.js";
import { FILTER_EXAMPLES } from "./types.js";
import { FILE_TYPES, type FileType } from "../vault/attachments/types.js";

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 7 * 86400, y: 365 * 86400 };

/**
 * Parses a time for `--since`/`--until`: a duration back from now (`90d`, `2w`, `12h`, `30m`), a date
 * or a full ISO time. Returns Unix seconds. A date is the whole local day: its start, or with
 * `endOfDay` (as `--until` reads it) its last second, so that `--until 2026-06-01` keeps the notes of
 * June 1st, as `--since 2026-06-01` does.
 *
 * @example
 * ```ts
 * parseWhen("2d", 1_800_000_000); // 1_799_827_200
 * parseWhen("2026-06-01T12:00:00Z"); // 1_780_315_200
 * parseWhen("2026-06-01", undefined, true); // 23:59:59 on June 1st, local time
 * ```
 */
export function parseWhen(value: string, now: number = Math.floor(Date.now() / 1000), endOfDay = false): number {
  const v = value.trim();
  const rel = /^(\d+)\s*([smhdwy])$/i.exec(v);
  if (rel) {
    const t = now - Number(rel[1]) * UNITS[rel[2].toLowerCase()];
    // before the year 1 no note was written; past it, the number reads as milliseconds downstream
    if (t < -62_135_596_800)
      throw new VaultRagError(
        "usage",
        `vault-rag: the duration "${value}" reaches back before the year 1 — use a shorter one, like 90d or 10y`,
      );
    return t;
  }
  // a time past the year 5138 would read as milliseconds downstream: it is as far as a filter goes
  const seconds = (ms: number) => Math.min(Math.floor(ms / 1000), MTIME_MS_THRESHOLD - 1);
  // a day or month past its end (2026-02-30, 2026-13-01) is refused, not read as a later date
  const [y, m, d] = v.slice(0, 10).split("-").map(Number);
  // a local midnight by setFullYear: `new Date(50, 5, 1)` is 1950
  const day = (dd: number) => {
    const at = new Date(0);
    at.setFullYear(y, m - 1, dd);
    at.setHours(0, 0, 0, 0);
    return at;
  };
  const real = day(d).getMonth() === m - 1 && day(d).getDate() === d;
  if (/^\d{4}-\d{2}-\d{2}$/.test(v) && real) {
    const t = day(d).getTime();
    if (!Number.isNaN(t)) return seconds(endOfDay ? day(d + 1).getTime() - 1000 : t);
  } else if (/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/.test(v) && real) {
    const t = Date.parse(v);
    if (!Number.isNaN(t)) return seconds(t);
  }
  throw new VaultRagError(
    "usage",
    `vault-rag: cannot read the time "${value}" — use a duration like 90d, 2w or 12h, a date like 2026-06-01, or an ISO time`,
  );
}

/** Filter options as the CLI and the library take them. */
export interface FilterOptions {
  tags?: string[];
  folder?: string;
  topFolder?: string;
  /** Only passages of files of this type: `note`, `pdf`, `canvas` or `docx`. */
  type?: string;
  /** Duration, date or ISO time (see {@link parseWhen}), or Unix seconds. */
  since?: string | number;
  until?: string | number;
  /** Which date `since` and `until` compare: the note's date (frontmatter, file name, else mtime; the default) or its file's mtime. */
  by?: "date" | "mtime";
  /** `key=value` pairs, all of which a note's properties must match (see {@link propClauses}). */
  props?: string[];
}

/**
 * The `since` and `until` of filter options in Unix seconds, as a filter compares them: a date given
 * to `until` reads as that day's last second (see {@link parseWhen}).
 *
 * @example
 * ```ts
 * timeRange({ since: 1_700_000_000, until: "2026-06-01" }); // { since: 1_700_000_000, until: 23:59:59 on June 1st }
 * ```
 */
export function timeRange(opts: FilterOptions, now?: number): { since?: number; until?: number } {
  const time = (v: string | number | undefined, endOfDay: boolean) =>
    v === undefined ? undefined : typeof v === "number" ? v : parseWhen(v, now, endOfDay);
  return { since: time(opts.since, false), until: time(opts.until, true) };
}

/**
 * Turns filter options into a Chroma `where` clause, or `undefined` when there is nothing to filter
 * (never `{}`, never a one-clause `$and`). Several tags combine with `$and`; tags are lowercased.
 * `since` and `until` compare the note's `date`, or its `mtime` with `by: "mtime"`.
 *
 * @example
 * ```ts
 * buildFilter({ tags: ["Pico"], since: "30d" });
 * // { $and: [{ tags: { $contains: "pico" } }, { date: { $gte: 1_797_408_000 } }] }
 * ```
 */
export function buildFilter(opts: FilterOptions, now?: number, known?: readonly string[]): Where | undefined {
  const clauses: Where[] = [];
  for (const t of opts.tags ?? []) {
    const tag = t.trim().replace(/^#/, "").toLowerCase();
    if (!tag) throw new VaultRagError("usage", `vault-rag: empty tag in --tag — give a tag name like pico`);
    const forms = unicodeForms(tag);
    clauses.push(
      forms.length === 1 ? { tags: { $contains: tag } } : { $or: forms.map((f) => ({ tags: { $contains: f } })) },
    );
  }
  for (const [key, value] of [
    ["folder", opts.folder],
    ["top_folder", opts.topFolder],
  ] as const) {
    if (value === undefined) continue;
    const forms = unicodeForms(folderName(value));
    clauses.push({ [key]: forms.length === 1 ? { $eq: forms[0] } : { $in: forms } });
  }
  if (opts.type !== undefined) {
    if (!FILE_TYPES.includes(opts.type as FileType))
      throw new VaultRagError(
        "usage",
        `vault-rag: unknown file type "${opts.type}" for --type — use ${FILE_TYPES.join(", ")}`,
      );
    clauses.push({ file_type: { $eq: opts.type } });
  }
  clauses.push(...propClauses(opts.props ?? [], known));
  const { since, until } = timeRange(opts, now);
  const by = opts.by ?? "date";
  if (by !== "date" && by !== "mtime")
    throw new VaultRagError("usage", `vault-rag: unknown date "${String(by)}" for --by — use date or mtime`);
  if (since !== undefined) clauses.push({ [by]: { $gte: since } });
  if (until !== undefined) clauses.push({ [by]: { $lte: until } });
  if (!clauses.length) return undefined;
  return clauses.length === 1 ? clauses[0] : { $and: clauses };
}

/**
 * A folder as a filter compares it: without slashes at its ends or a leading `./`, as a shell's
 * completion writes it (`./common/` is the folder `common`).
 *
 * @example
 * ```ts
 * folderName("./kitchen/"); // "kitchen"
 * folderName(".");          // "": the vault's root
 * ```
 */
export function folderName(value: string): string {
  // "." and "./" are the vault's root, as in a shell, not a hidden folder
  return value.replace(/^(?:\.(?:\/+|$))+|^\/+|\/+$/g, "");
}

/**
 * The `where` clause of a subtree: the notes in the folder `under` or any folder below it, as a
 * `folder` `$in` list of the index's folders, which both backends filter by. The vault's root
 * (`""`, `.`) is every folder: no clause. A folder the index does not hold gives a list of its own
 * name only, which matches nothing (the no-result hints say why).
 *
 * @example
 * ```ts
 * await subtreeWhere(store, "notes/"); // { folder: { $in: ["notes", "notes/permanent", "notes/permanent/ideas"] } }
 * await subtreeWhere(store, ".");      // undefined
 * ```
 */
export async function subtreeWhere(store: Pick<Store, "listFolders">, under: string): Promise<Where | undefined> {
  const want = folderName(under).normalize("NFC");
  if (want === "") return undefined;
  const folders = (await store.listFolders()).map((f) => f.folder);
  const inside = folders.filter((f) => {
    const nfc = f.normalize("NFC");
    return nfc === want || nfc.startsWith(`${want}/`);
  });
  return { folder: { $in: inside.length ? inside : unicodeForms(want) } };
}

/**
 * A name as written and in the other Unicode forms of its accented letters, each once: a folder
 * named on macOS may spell "é" as "e" plus a combining accent, which `--folder Café` typed
 * elsewhere does not, and a filter compares strings exactly.
 */
function unicodeForms(name: string): string[] {
  return [...new Set([name, name.normalize("NFC"), name.normalize("NFD")])];
}

/**
 * Combines several `where` clauses with `$and`, dropping empty ones (`{}`, `null`, `undefined`).
 * A clause that is not an object (a list, a string) is refused, not dropped.
 *
 * @example
 * ```ts
 * andWhere({ folder: "kitchen" }, undefined); // { folder: "kitchen" }
 * andWhere(undefined, [] as never);           // throws: a where filter must be a JSON object, got []
 * ```
 */
export function andWhere(...clauses: (Where | undefined)[]): Where | undefined {
  for (const c of clauses as unknown[])
    if (c !== undefined && c !== null && (typeof c !== "object" || Array.isArray(c)))
      throw new VaultRagError(
        "filter_invalid",
        `vault-rag: a where filter must be a JSON object, got ${JSON.stringify(c)} — e.g. ${FILTER_EXAMPLES.where}`,
      );
  const kept = clauses.filter((c): c is Where => !!c && Object.keys(c).length > 0);
  if (!kept.length) return undefined;
  return kept.length === 1 ? kept[0] : { $and: kept };
}

/** A search request as every interface takes it: search options plus the filter shorthands. */
export type SearchRequest = import("./types.js").SearchOptions & FilterOptions;

/**
 * The one place filter shorthands become a search: `tags`, `folder`, `topFolder`, `type`, `since` and `until`
 * are turned into a `where` clause and combined with `where` by `$and` (used by the CLI, the library
 * and so the MCP server).
 *
 * @example
 * ```ts
 * searchOptionsOf({ tags: ["pico"], where: { word_count: { $gt: 40 } }, topK: 3 });
 * // { topK: 3, where: { $and: [{ tags: { $contains: "pico" } }, { word_count: { $gt: 40 } }] } }
 * ```
 */
export function searchOptionsOf(
  r: SearchRequest,
  now?: number,
  known?: readonly string[],
): import("./types.js").SearchOptions {
  const { tags, folder, topFolder, type, since, until, by, props, where, ...rest } = r;
  const combined = andWhere(buildFilter({ tags, folder, topFolder, type, since, until, by, props }, now, known), where);
  return { ...rest, where: combined };
}

/**
 * {@link searchOptionsOf} with the index's property names read when a `--prop` pair needs them to
 * be read (a name holding `=`, see `propClauses`).
 *
 * @example
 * ```ts
 * await searchOptionsFor(store, { props: ["a=b=left"] }); // the property "a=b" equals "left", when the index holds "a=b"
 * ```
 */
export async function searchOptionsFor(store: Store, r: SearchRequest): Promise<import("./types.js").SearchOptions> {
  return searchOptionsOf(r, undefined, propPairsNeedNames(r.props) ? await propNames(store) : undefined);
}
