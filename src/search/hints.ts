import { normaliseWhere, type Store, type Where, type WhereNode } from "../store/index.js";
import { closest } from "../closest.js";
// the pattern alone, not the vault's index: that brings the Markdown parser into a search's start
import { inlineTag } from "../vault/tag-pattern.js";
import { folderName, timeRange, type FilterOptions } from "./filter.js";

const quoted = (xs: string[]) => xs.map((x) => `"${x}"`).join(", ");

/** Tags no note has that are each given their closest tags; more are counted in one line. */
const MAX_TAG_HINTS = 5;

/**
 * Why a filtered search may have found nothing, as one-line hints that name the fix: a `folder` or
 * `topFolder` that exists only in another case ("did you mean …"), or not at all (the closest ones),
 * a folder that holds only folders (its subfolders, and `topFolder` when it is one), a tag that no
 * note has (the closest tags), and a time range that is empty (`since` after `until`, or in the
 * future) or misses every note (when the notes did change). Empty when the filters name things that exist.
 * `to`: the CLI names its flags and commands; a request (the library, MCP, the HTTP API) names
 * the filter. With the `vault`, a folder the vault holds but the index leaves out says why (a
 * hidden folder, `.vault-ragignore`). A `where` filter's paths, folders, tags and link targets that
 * no note has are named too, with the closest names ({@link whereHints}).
 *
 * @example
 * ```ts
 * await noResultHints(store, { folder: "Robots", tags: ["picoo"] });
 * // ['vault-rag: no folder "Robots" in the index — did you mean --folder "robots"?',
 * //  'vault-rag: no note has the tag "picoo" — closest tags: "pico"; list them with `vault-rag tags`']
 * await noResultHints(store, { folder: "Robots" }, "request");
 * // ['vault-rag: no folder "Robots" in the index — did you mean the folder "robots"?']
 * ```
 */
export async function noResultHints(
  store: Store,
  f: FilterOptions & { where?: Where },
  to: "cli" | "request" = "cli",
  vault?: string,
): Promise<string[]> {
  const cli = to === "cli";
  const hints: string[] = [];
  if (f.folder !== undefined || f.topFolder !== undefined) hints.push(...(await folderHints(store, f, cli, vault)));
  if (f.tags?.length) hints.push(...(await tagHints(store, f.tags, cli)));
  hints.push(...(await whereHints(store, f.where)));
  hints.push(...(await timeHints(store, f, cli)));
  return hints;
}

/** The hints of {@link noResultHints} about `folder` and `topFolder`. */
async function folderHints(store: Store, f: FilterOptions, cli: boolean, vault: string | undefined): Promise<string[]> {
  const hints: string[] = [];
  // either Unicode form of an accented name (the filter matched both, see buildFilter)
  const same = (a: string, b: string) => a.normalize("NFC") === b.normalize("NFC");
  const folders = (await store.listFolders()).map((x) => x.folder);
  const tops = topFolders(folders);
  for (const [flag, value, names] of [
    [cli ? "--folder" : "the folder", f.folder, folders],
    [cli ? "--top-folder" : "the top folder", f.topFolder, tops],
  ] as const) {
    if (value === undefined) continue;
    const want = folderName(value);
    if (names.some((x) => same(x, want))) continue;
    // a folder path given as a top folder, which is only a path's first part
    if (names === tops && want.includes("/") && folders.some((x) => same(x, want))) {
      const folderFlag = cli ? `--folder "${want}"` : `the folder "${want}"`;
      hints.push(
        `vault-rag: no top folder "${value}" — a top folder is a path's first part ("${want.split("/")[0]}"); for this folder give ${folderFlag}`,
      );
      continue;
    }
    // the name `vault-rag folders` prints for the vault's root, which is the folder ""
    if (names === folders && want === "(vault root)" && folders.includes("")) {
      hints.push(
        `vault-rag: no folder "(vault root)" — that is how \`vault-rag folders\` shows the vault's root; give ${cli ? '--folder ""' : 'the folder ""'} for the notes at the root`,
      );
      continue;
    }
    // a folder that holds folders only: no note has it as its folder
    const under = names === folders ? folders.filter((x) => x.startsWith(`${want}/`)) : [];
    if (under.length) {
      const top = tops.includes(want);
      hints.push(
        `vault-rag: no note is directly in the folder "${value}", only in its subfolders (${quoted(under.slice(0, 3))}${under.length > 3 ? ", …" : ""})${top ? ` — for all of them give ${cli ? `--top-folder "${want}"` : `the top folder "${want}"`}` : ""}`,
      );
      continue;
    }
    // a folder of the vault that the walk never goes into: closest names would hide why
    // (the walk's module only here: a search that finds its folder does not load it)
    const walk = vault === undefined ? undefined : await import("../vault/walk.js");
    const hidden = walk && vault !== undefined ? walk.whyFolderNotWalked(vault, want) : undefined;
    if (walk && hidden) {
      const fix = hidden.startsWith(walk.IGNORE_FILE)
        ? ` — remove that rule and ${cli ? "run `vault-rag index`" : "index the vault again"} to search it`
        : "";
      hints.push(`vault-rag: no folder "${value}" in the index: ${hidden}${fix}`);
      continue;
    }
    const sameCase = names.filter((x) => x.toLowerCase() === want.toLowerCase());
    if (sameCase.length)
      hints.push(`vault-rag: no folder "${value}" in the index — did you mean ${flag} ${quoted(sameCase)}?`);
    else {
      const near = closest(
        want,
        names.filter((x) => x !== ""),
      );
      hints.push(
        `vault-rag: no folder "${value}" in the index${near.length ? ` — closest: ${quoted(near)}` : ""}${cli ? "; list them with `vault-rag folders`" : ""}`,
      );
    }
  }
  return hints;
}

/** The hints of {@link noResultHints} about tags no note has. */
async function tagHints(store: Store, wanted: string[], cli: boolean): Promise<string[]> {
  const hints: string[] = [];
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
      hints.push(
        `vault-rag: no note has the tag "${t}" — in a note's text a tag ends at "${want[head.length]}", as in Obsidian: #${want} is the tag "${head}"; give ${cli ? `--tag "${head}"` : `the tag "${head}"`}`,
      );
      continue;
    }
    const near = closest(want, tags);
    hints.push(
      `vault-rag: no note has the tag "${t}"${near.length ? ` — closest tags: ${quoted(near)}` : ""}${cli ? "; list them with `vault-rag tags`" : ""}`,
    );
  }
  if (unknown > MAX_TAG_HINTS) hints.push(`vault-rag: and ${unknown - MAX_TAG_HINTS} more tags that no note has`);
  return hints;
}

/** The hints of {@link noResultHints} about a time range that is empty or misses every note. */
async function timeHints(store: Store, f: FilterOptions, cli: boolean): Promise<string[]> {
  const hints: string[] = [];
  // a time range that holds no time, and one that begins after every note's last change
  let since: number | undefined;
  let until: number | undefined;
  try {
    ({ since, until } = timeRange(f));
  } catch {
    // a time it cannot read was refused before any search ran
  }
  const [sinceFlag, untilFlag] = cli ? ["--since", "--until"] : ["since", "until"];
  if (since !== undefined && until !== undefined && since > until)
    hints.push(
      `vault-rag: ${sinceFlag} ${JSON.stringify(String(f.since))} is after ${untilFlag} ${JSON.stringify(String(f.until))}, so no note can be in between — swap them`,
    );
  else if (since !== undefined && since > Math.floor(Date.now() / 1000))
    hints.push(
      `vault-rag: ${sinceFlag} ${JSON.stringify(String(f.since))} is in the future — no note has changed since then`,
    );
  else if (since !== undefined || until !== undefined) {
    // a range that misses every note: say when the notes did change
    let oldest = Infinity;
    let newest = -Infinity;
    for (const n of (await store.notes()).values()) {
      oldest = Math.min(oldest, n.mtime);
      newest = Math.max(newest, n.mtime);
    }
    // `3m` is three minutes, as `m` is in `30m`; a reader may have meant months
    const minutes = /^\s*\d+\s*m\s*$/.test(String(f.since)) ? ' ("m" is minutes: give months in days, like 90d)' : "";
    if (newest === -Infinity) return hints; // no notes: the search said the index is empty
    if (since !== undefined && newest < since)
      hints.push(
        `vault-rag: ${sinceFlag} ${JSON.stringify(String(f.since))} leaves out every note${minutes}: the last change was on ${localDay(newest)}`,
      );
    else if (until !== undefined && oldest > until)
      hints.push(
        `vault-rag: ${untilFlag} ${JSON.stringify(String(f.until))} leaves out every note: the oldest last changed on ${localDay(oldest)}`,
      );
  }
  return hints;
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
const NAMED_FIELDS = {
  path: "no note has the path",
  folder: "no folder",
  top_folder: "no top folder",
  tags: "no note has the tag",
  links: "no note links to",
} as const;
type NamedField = keyof typeof NAMED_FIELDS;

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
export async function whereHints(store: Store, where: Where | undefined): Promise<string[]> {
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
    } else if (n.field in NAMED_FIELDS && !held.has(n.field as NamedField)) {
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
  const hints = missing.slice(0, MAX_TAG_HINTS).map((m) => missingHint(m.field, m.value, held.get(m.field)!.names));
  const more = missing.length - hints.length;
  if (more > 0)
    hints.push(`vault-rag: and ${more} more value${more > 1 ? "s" : ""} of the where filter that no note has`);
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
function missingHint(field: NamedField, value: string, names: string[]): string {
  const sameCase = names.filter((x) => x.toLowerCase() === value.toLowerCase());
  const near = sameCase.length
    ? []
    : closest(
        value,
        names.filter((x) => x !== ""),
      );
  return `vault-rag: ${NAMED_FIELDS[field]} "${value}" in the index${sameCase.length ? ` — did you mean ${quoted(sameCase)}?` : near.length ? ` — closest: ${quoted(near)}` : ""}`;
}
