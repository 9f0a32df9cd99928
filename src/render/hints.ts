/**
 * The words of a no-result hint ({@link Hint}) on each interface: the CLI names its flags
 * (`--folder "robots"`) and commands (`vault-rag tags`); a request (the library, MCP, the HTTP API)
 * names the filter ("the folder "robots"").
 */
import type { Hint, HintParam } from "../search/hints.js";

/** Who reads a hint or a fix: a person at the CLI, or the caller of a request. */
export type Face = "cli" | "request";

const quoted = (xs: string[]) => xs.map((x) => `"${x}"`).join(", ");

/** How each face names a filter that a hint gives a value for. */
const PARAM_WORDS: Record<HintParam, Record<Face, string>> = {
  folder: { cli: "--folder", request: "the folder" },
  topFolder: { cli: "--top-folder", request: "the top folder" },
  under: { cli: "--under", request: "the subtree" },
  tags: { cli: "--tag", request: "the tag" },
  since: { cli: "--since", request: "since" },
  until: { cli: "--until", request: "until" },
};

/** How a hint names the type of a property's values. */
const TYPE_WORDS = { string: "text", number: "numbers", boolean: "true/false", date: "dates", list: "lists" } as const;

/** What a `where` hint says of each field no note has the value of. */
const WHERE_WORDS = {
  path: "no note has the path",
  folder: "no folder",
  top_folder: "no top folder",
  tags: "no note has the tag",
  links: "no note links to",
} as const;

/**
 * One hint as a line in a face's words, with the `vault-rag:` prefix.
 *
 * @example
 * ```ts
 * hintLine({ kind: "missing", param: "folder", value: "Robots", sameCase: ["robots"], closest: [] }, "cli");
 * // 'vault-rag: no folder "Robots" in the index — did you mean --folder "robots"?'
 * ```
 */
export function hintLine(h: Hint, face: Face): string {
  return `vault-rag: ${hintWords(h, face)}`;
}

/**
 * Hints as lines in a face's words.
 *
 * @example
 * ```ts
 * hintLines(res.hints, "request"); // ['vault-rag: no note has the tag "picoo" — closest tags: "pico"']
 * ```
 */
export function hintLines(hints: readonly Hint[], face: Face): string[] {
  return hints.map((h) => hintLine(h, face));
}

/** A folder as a filter reads it, without the slashes at its ends that a shell's completion adds. */
const folderShown = (value: string) => value.replace(/^(?:\.\/+)+|^\/+|\/+$/g, "");

function hintWords(h: Hint, face: Face): string {
  const cli = face === "cli";
  const give = (param: HintParam, value: string) => `${PARAM_WORDS[param][face]} "${value}"`;
  switch (h.kind) {
    case "path_as_top":
      return `no top folder "${h.value}" — a top folder is a path's first part ("${h.folder.split("/")[0]}"); for this folder give ${give("folder", h.folder)}`;
    case "root_name":
      return `no folder "(vault root)" — that is how \`vault-rag folders\` shows the vault's root; give ${cli ? '--folder ""' : 'the folder ""'} for the notes at the root`;
    case "only_subfolders":
      return `no note is directly in the folder "${h.value}", only in its subfolders (${quoted(h.under)}${h.more ? ", …" : ""}) — for all of them give ${give("under", folderShown(h.value))}`;
    case "not_walked": {
      const fix = h.ignored
        ? ` — remove that rule and ${cli ? "run `vault-rag index`" : "index the vault again"} to search it`
        : "";
      return `no folder "${h.value}" in the index: ${h.why}${fix}`;
    }
    case "missing":
      if (h.param === "tags")
        return `no note has the tag "${h.value}"${h.closest.length ? ` — closest tags: ${quoted(h.closest)}` : ""}${cli ? "; list them with `vault-rag tags`" : ""}`;
      if (h.sameCase.length)
        return `no folder "${h.value}" in the index — did you mean ${PARAM_WORDS[h.param][face]} ${quoted(h.sameCase)}?`;
      return `no folder "${h.value}" in the index${h.closest.length ? ` — closest: ${quoted(h.closest)}` : ""}${cli ? "; list them with `vault-rag folders`" : ""}`;
    case "tag_ends":
      return `no note has the tag "${h.value}" — in a note's text a tag ends at "${h.at}", as in Obsidian: #${h.tag} is the tag "${h.head}"; give ${give("tags", h.head)}`;
    case "more_tags":
      return `and ${h.count} more tags that no note has`;
    case "where_missing":
      return `${WHERE_WORDS[h.field]} "${h.value}" in the index${h.sameCase.length ? ` — did you mean ${quoted(h.sameCase)}?` : h.closest.length ? ` — closest: ${quoted(h.closest)}` : ""}`;
    case "prop_type": {
      const held = Object.entries(h.types)
        .sort((a, b) => b[1] - a[1])
        .map(([t, n]) => `${TYPE_WORDS[t as keyof typeof TYPE_WORDS]} in ${n} note${n === 1 ? "" : "s"}`)
        .join(", ");
      return `the property "${h.name}" holds ${held}, not ${h.want === "number" ? "numbers" : "true/false"} — declare it ${h.want === "number" ? "a number" : "a checkbox"} in Obsidian's .obsidian/types.json and ${cli ? "run `vault-rag index`" : "index the vault again"}, or compare it as text`;
    }
    case "more_where":
      return `and ${h.count} more value${h.count > 1 ? "s" : ""} of the where filter that no note has`;
    case "since_after_until":
      return `${PARAM_WORDS.since[face]} ${JSON.stringify(h.since)} is after ${PARAM_WORDS.until[face]} ${JSON.stringify(h.until)}, so no note can be in between — swap them`;
    case "since_future":
      return `${PARAM_WORDS.since[face]} ${JSON.stringify(h.since)} is in the future — no note has changed since then`;
    case "range_misses":
      return h.param === "since"
        ? `${PARAM_WORDS.since[face]} ${JSON.stringify(h.value)} leaves out every note${h.minutes ? ' ("m" is minutes: give months in days, like 90d)' : ""}: ${h.by === "mtime" ? "the last change was on" : "the newest note is dated"} ${h.day}`
        : `${PARAM_WORDS.until[face]} ${JSON.stringify(h.value)} leaves out every note: ${h.by === "mtime" ? "the oldest last changed on" : "the oldest note is dated"} ${h.day}`;
  }
}
