import { normaliseWhere, type Store, type Where, type WhereNode } from "../store/index.js";
import { closest } from "../closest.js";
// the pattern alone, not the vault's index: that brings the Markdown parser into a search's start
import { inlineTag } from "../vault/tag-pattern.js";
import { folderName, timeRange, type FilterOptions } from "./filter.js";
import { propCounts } from "./props.js";
import type { PropType } from "../props.js";

/** Tags no note has that are each given their closest tags; more are counted in one line. */
const MAX_TAG_HINTS = 5;

/** The filters a hint may name, by the library's names (each interface words them its own way). */
export type HintParam = "folder" | "topFolder" | "under" | "tags" | "since" | "until";

/**
 * Why a filtered search may have found nothing, as data; each interface words it (the CLI names
 * its flags and commands, a request names the filter).
 * - `path_as_top`: a folder path given as a top folder (`folder` is the path);
 * - `root_name`: "(vault root)", which is how the folder list shows the folder "";
 * - `only_subfolders`: a folder that holds folders only (`under`: some of them; `top`: it is a top folder);
 * - `not_walked`: a folder of the vault the index leaves out (`why`; `ignored`: by .vault-ragignore);
 * - `missing`: a folder, top folder or tag no note has (`sameCase`: the name in another case; else `closest`);
 * - `tag_ends`: a tag no note has whose head (up to a character a tag written in a note cannot hold) is one;
 * - `more_tags`: how many more tags no note has;
 * - `where_missing`: a value a `where` filter asks for that no note has (`sameCase`, else `closest`);
 * - `more_where`: how many more such values;
 * - `prop_type`: a property compared as a number or true/false (`want`) whose values are all of other types (`types`: notes per type);
 * - `since_after_until`, `since_future`: a time range that holds no time;
 * - `range_misses`: a range that leaves out every note (`day`: the last, or the oldest, change; `minutes`: "3m" was read as minutes).
 */
export type Hint =
  | { kind: "path_as_top"; value: string; folder: string }
  | { kind: "root_name"; value: string }
  | { kind: "only_subfolders"; param: "folder"; value: string; under: string[]; more: boolean; top?: string }
  | { kind: "not_walked"; param: "folder" | "topFolder" | "under"; value: string; why: string; ignored: boolean }
  | {
      kind: "missing";
      param: "folder" | "topFolder" | "under" | "tags";
      value: string;
      sameCase: string[];
      closest: string[];
    }
  | { kind: "tag_ends"; value: string; tag: string; at: string; head: string }
  | { kind: "more_tags"; count: number }
  | { kind: "where_missing"; field: NamedField; value: string; sameCase: string[]; closest: string[] }
  | { kind: "more_where"; count: number }
  | { kind: "prop_type"; name: string; want: "number" | "boolean"; types: Partial<Record<PropType, number>> }
  | { kind: "since_after_until"; since: string; until: string }
  | { kind: "since_future"; since: string }
  | {
      kind: "range_misses";
      param: "since" | "until";
      value: string;
      day: string;
      minutes: boolean;
      /** The dates compared: the notes' own (`date`, the default) or their files' (`mtime`). */
      by: "date" | "mtime";
    };

/**
 * Why a filtered search may have found nothing ({@link Hint}): a `folder` or `topFolder` that exists
 * only in another case, or not at all (the closest ones), a folder that holds only folders, a tag
 * that no note has (the closest tags), and a time range that is empty (`since` after `until`, or in
 * the future) or misses every note. Empty when the filters name things that exist. With the
 * `vault`, a folder the vault holds but the index leaves out says why (a hidden folder,
 * `.vault-ragignore`). A `where` filter's values that no note has are named too ({@link whereHints}).
 *
 * @example
 * ```ts
 * await noResultHints(store, { folder: "Robots", tags: ["picoo"] });
 * // [{ kind: "missing", param: "folder", value: "Robots", sameCase: ["robots"], closest: [] },
 * //  { kind: "missing", param: "tags", value: "picoo", sameCase: [], closest: ["pico"] }]
 * ```
 */
export async function noResultHints(
  store: Store,
  f: FilterOptions & { where?: Where; under?: string },
  vault?: string,
): Promise<Hint[]> {
  const hints: Hint[] = [];
  if (f.folder !== undefined || f.topFolder !== undefined || f.under !== undefined)
    hints.push(...(await folderHints(store, f, vault)));
  if (f.tags?.length) hints.push(...(await tagHints(store, f.tags)));
  hints.push(...(await whereHints(store, f.where)));
  if (f.where) hints.push(...(await propTypeHints(store, f.where)));
  hints.push(...(await timeHints(store, f)));
  return hints;
}

/** The hints for a `folder` or `topFolder` that names no folder of the index. */
async function folderHints(
  store: Store,
  f: FilterOptions & { under?: string },
  vault: string | undefined,
): Promise<Hint[]> {
  const hints: Hint[] = [];
  // either Unicode form of an accented name (the filter matched both, see buildFilter)
  const same = (a: string, b: string) => a.normalize("NFC") === b.normalize("NFC");
  const folders = (await store.listFolders()).map((x) => x.folder);
  const tops = topFolders(folders);
  for (const [param, value, names] of [
    ["folder", f.folder, folders],
    ["topFolder", f.topFolder, tops],
    ["under", f.under, folders],
  ] as const) {
    if (value === undefined) continue;
    const want = folderName(value);
    if (names.some((x) => same(x, want))) continue;
    // a subtree holds the folders below it, which may hold every note
    if (
      param === "under" &&
      (want === "" || names.some((x) => x.normalize("NFC").startsWith(`${want.normalize("NFC")}/`)))
    )
      continue;
    // a folder path given as a top folder, which is only a path's first part
    if (names === tops && want.includes("/") && folders.some((x) => same(x, want))) {
      hints.push({ kind: "path_as_top", value, folder: want });
      continue;
    }
    // the name the folder list shows for the vault's root, which is the folder ""
    if (param === "folder" && want === "(vault root)" && folders.includes("")) {
      hints.push({ kind: "root_name", value });
      continue;
    }
    // a folder that holds folders only: no note has it as its folder
    const under = param === "folder" ? folders.filter((x) => x.startsWith(`${want}/`)) : [];
    if (under.length) {
      const top = tops.includes(want) ? want : undefined;
      hints.push({
        kind: "only_subfolders",
        param: "folder",
        value,
        under: under.slice(0, 3),
        more: under.length > 3,
        ...(top ? { top } : {}),
      });
      continue;
    }
    // a folder of the vault that the walk never goes into: closest names would hide why
    // (the walk's module only here: a search that finds its folder does not load it)
    const walk = vault === undefined ? undefined : await import("../vault/walk.js");
    const hidden = walk && vault !== undefined ? walk.whyFolderNotWalked(vault, want) : undefined;
    if (walk && hidden) {
      hints.push({ kind: "not_walked", param, value, why: hidden, ignored: hidden.startsWith(walk.IGNORE_FILE) });
      continue;
    }
    const sameCase = names.filter((x) => x.toLowerCase() === want.toLowerCase());
    const near = sameCase.length
      ? []
      : closest(
          want,
          names.filter((x) => x !== ""),
        );
    hints.push({ kind: "missing", param, value, sameCase, closest: near });
  }
  return hints;
}

/** The hints for tags that no note has: the closest tags, or the tag a note's text would have read. */
async function tagHints(store: Store, wanted: string[]): Promise<Hint[]> {
  const hints: Hint[] = [];
  const tags = (await store.listTags()).map((x) => x.tag);
  const have = new Set(tags.map((t) => t.normalize("NFC").toLowerCase()));
  let unknown = 0;
  for (const t of wanted) {
    const want = t.trim().replace(/^#/, "").normalize("NFC").toLowerCase();
    if (have.has(want)) continue;
    // the closest names of a few: a request of 100 unknown tags is not 100 searches of every tag
    if (++unknown > MAX_TAG_HINTS) continue;
    // a tag written in a note ends where a character a tag cannot hold begins, as in Obsidian:
    // "#role.bugcatcher" is the tag "role" (a frontmatter tag keeps the dot)
    const head = inlineTag(want);
    if (head && head !== want && have.has(head)) {
      hints.push({ kind: "tag_ends", value: t, tag: want, at: want[head.length], head });
      continue;
    }
    hints.push({ kind: "missing", param: "tags", value: t, sameCase: [], closest: closest(want, tags) });
  }
  if (unknown > MAX_TAG_HINTS) hints.push({ kind: "more_tags", count: unknown - MAX_TAG_HINTS });
  return hints;
}

/** The hints for a time range that holds no time, or that begins after every note's last change. */
async function timeHints(store: Store, f: FilterOptions): Promise<Hint[]> {
  let since: number | undefined;
  let until: number | undefined;
  try {
    ({ since, until } = timeRange(f));
  } catch {
    return []; // a time it cannot read was refused before any search ran
  }
  const sinceText = String(f.since);
  const untilText = String(f.until);
  if (since !== undefined && until !== undefined && since > until)
    return [{ kind: "since_after_until", since: sinceText, until: untilText }];
  if (since !== undefined && since > Math.floor(Date.now() / 1000)) return [{ kind: "since_future", since: sinceText }];
  if (since === undefined && until === undefined) return [];
  // a range that misses every note: say when the notes did change
  let oldest = Infinity;
  let newest = -Infinity;
  // the dates the range compared: the notes' own (frontmatter, file name, mtime), or with `by: "mtime"` their files'
  const by = f.by === "mtime" ? "mtime" : "date";
  const times =
    by === "mtime"
      ? [...(await store.notes()).values()].map((n) => n.mtime)
      : (await store.noteProperties()).map((n) => n.date);
  for (const t of times) {
    oldest = Math.min(oldest, t);
    newest = Math.max(newest, t);
  }
  if (newest === -Infinity) return []; // no notes: the search said the index is empty
  // `3m` is three minutes, as `m` is in `30m`; a reader may have meant months
  const minutes = /^\s*\d+\s*m\s*$/.test(sinceText);
  if (since !== undefined && newest < since)
    return [{ kind: "range_misses", param: "since", value: sinceText, day: localDay(newest), minutes, by }];
  if (until !== undefined && oldest > until)
    return [{ kind: "range_misses", param: "until", value: untilText, day: localDay(oldest), minutes: false, by }];
  return [];
}

/** The top folders of some folders: each path's first part, once. */
const topFolders = (folders: string[]) => [...new Set(folders.map((x) => x.split("/")[0]))];

/** Unix seconds as the local day, `2026-06-01`, as `--since` takes it. */
function localDay(seconds: number): string {
  const d = new Date(seconds * 1000);
  const two = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}`;
}

/** The fields whose values a `where` filter names that a hint can look up, and what it calls them. */
const NAMED_FIELDS = { path: true, folder: true, top_folder: true, tags: true, links: true } as const;
/** A field whose values a `where` hint names. */
export type NamedField = keyof typeof NAMED_FIELDS;

/**
 * Hints for the values a `where` filter asks for (`$eq` and `$in` on path, folder and top_folder,
 * `$contains` on tags and links) that no note has, each with the names closest to it, when those
 * values are why the filter matches nothing: a clause of an `$and`, every branch of an `$or` (an
 * `$or` with a branch that may match is left alone), every value of an `$in`. Values a clause
 * leaves out (`$ne`, `$nin`, `$not_contains`) are never why. At most {@link MAX_TAG_HINTS}, then a count.
 *
 * @example
 * ```ts
 * await whereHints(store, { path: "robots/smars.md" });
 * // ['vault-rag: no note has the path "robots/smars.md" in the index — did you mean "robots/SMARS.md"?']
 * await whereHints(store, { links: { $contains: "Sourdouh" } });
 * // ['vault-rag: no note links to "Sourdouh" in the index — closest: "Sourdough"']
 * ```
 */
export async function whereHints(store: Store, where: Where | undefined): Promise<Hint[]> {
  let node: WhereNode | undefined;
  try {
    node = normaliseWhere(where);
  } catch {
    return []; // a filter it cannot read was refused before any search ran
  }
  if (!node) return [];
  // what the index holds, read once for each field the filter names
  const held = new Map<NamedField, { names: string[]; set: Set<string> }>();
  const collect = async (n: WhereNode): Promise<void> => {
    if ("clauses" in n) {
      for (const c of n.clauses) await collect(c);
    } else if (n.kind !== "prop" && n.field in NAMED_FIELDS && !held.has(n.field as NamedField)) {
      const names = await namesIn(store, n.field as NamedField);
      held.set(n.field as NamedField, { names, set: new Set(names) });
    }
  };
  await collect(node);
  if (!held.size) return [];
  // the values that explain why a clause matches nothing, or undefined when nothing named does
  type Missing = { field: NamedField; value: string };
  const explain = (n: WhereNode): Missing[] | undefined => {
    if ("clauses" in n) {
      const parts = n.clauses.map(explain);
      const why = parts.filter((p): p is Missing[] => p !== undefined);
      if (n.kind === "or" ? why.length < parts.length : !why.length) return undefined;
      return why.flat();
    }
    if (n.kind === "prop") return undefined;
    const field = n.field as NamedField;
    const have = held.get(field);
    if (!have) return undefined;
    const values =
      n.kind === "cmp" && n.op === "$eq"
        ? [n.value]
        : n.kind === "set" && n.op === "$in"
          ? n.values
          : n.kind === "list" && n.op === "$contains"
            ? [n.value]
            : [];
    if (!values.length || values.some((v) => have.set.has(String(v)))) return undefined;
    return values.map((v) => ({ field, value: String(v) }));
  };
  const missing = [...new Map((explain(node) ?? []).map((m) => [`${m.field}\0${m.value}`, m])).values()];
  // the closest names of a few: a list of 50,000 paths no note has is not 50,000 searches of every path
  const hints: Hint[] = missing
    .slice(0, MAX_TAG_HINTS)
    .map((m) => missingHint(m.field, m.value, held.get(m.field)!.names));
  const more = missing.length - hints.length;
  if (more > 0) hints.push({ kind: "more_where", count: more });
  return hints;
}

/**
 * The properties a `where` filter compares as numbers (an ordering, or `$eq`/`$in` of a number) or
 * as true/false, whose values in the index are all of other types: `rating: "8"` is text unless
 * Obsidian's `.obsidian/types.json` declares `rating` a number.
 *
 * @example
 * ```ts
 * await propTypeHints(store, { rating: { $gte: 7 } });
 * // [{ kind: "prop_type", name: "rating", want: "number", types: { string: 3 } }]
 * ```
 */
export async function propTypeHints(store: Store, where: Where): Promise<Hint[]> {
  const counts = propCounts(await store.noteProperties());
  let node: WhereNode | undefined;
  try {
    node = normaliseWhere(
      where,
      counts.map((c) => c.name),
    );
  } catch {
    return [];
  }
  const wanted = new Map<string, "number" | "boolean">();
  const visit = (n: WhereNode): void => {
    if ("clauses" in n) return n.clauses.forEach(visit);
    if (n.kind !== "prop" || n.op === "$ne" || n.op === "$nin" || n.op === "$contains" || n.op === "$not_contains")
      return;
    const first = Array.isArray(n.value) ? n.value[0] : n.value;
    if (typeof first === "number") wanted.set(n.name, "number");
    else if (typeof first === "boolean") wanted.set(n.name, "boolean");
  };
  visit(node!);
  const hints: Hint[] = [];
  for (const [name, want] of wanted) {
    const c = counts.find((x) => x.name === name);
    if (!c) continue;
    const fits = want === "number" ? (c.types.number ?? 0) + (c.types.date ?? 0) : (c.types.boolean ?? 0);
    if (!fits) hints.push({ kind: "prop_type", name, want, types: c.types });
  }
  return hints;
}

/** The names the index holds for a field a `where` filter may name. */
async function namesIn(store: Store, field: NamedField): Promise<string[]> {
  switch (field) {
    case "path":
      return [...(await store.notes()).keys()];
    case "folder":
      return (await store.listFolders()).map((x) => x.folder);
    case "top_folder":
      return topFolders((await store.listFolders()).map((x) => x.folder));
    case "tags":
      return (await store.listTags()).map((x) => x.tag);
    case "links":
      return [...new Set((await store.noteLinks()).flatMap((n) => n.links))];
  }
}

/** The hint for one value of a field that no note has, with the name in another case or the closest. */
function missingHint(field: NamedField, value: string, names: string[]): Hint {
  const sameCase = names.filter((x) => x.toLowerCase() === value.toLowerCase());
  const near = sameCase.length
    ? []
    : closest(
        value,
        names.filter((x) => x !== ""),
      );
  return { kind: "where_missing", field, value, sameCase, closest: near };
}
