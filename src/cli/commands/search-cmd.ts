import { ChromaStore, NEAR_WINDOW, proximityPairs, type Store } from "../../store/index.js";
import {
  hitJson,
  NO_WORDS_NOTICE,
  noResultHints,
  search,
  searchOptionsOf,
  SEARCH_DEFAULTS,
  wordNetProblem,
  type SearchRequest,
} from "../../search/index.js";
import { staleHits, staleHitsWarning } from "../../indexing/stale-hits.js";
import { useColor } from "../color.js";
import { indexCommand, isVaultKnown, locate, openForQuery, withLocatedVault, type Location } from "../open.js";
import { formatHits, printable } from "../output.js";
import { noteLinker, useLinks } from "../hyperlink.js";
import { err, out, stderrLogger } from "../io.js";

/** The flags shared by commands that search. */
export interface SearchFlags {
  vault?: string;
  db?: string;
  topK: number;
  perNote: number;
  oversample: number;
  tag?: string[];
  folder?: string;
  topFolder?: string;
  since?: string;
  until?: string;
  where?: Record<string, unknown>;
  whereDocument?: Record<string, unknown>;
  minRatio?: number;
  mode: "dense" | "keyword" | "hybrid";
  /** `--no-expand` makes it false. */
  expand?: boolean;
  /** `--no-spell` makes it false. */
  spell?: boolean;
  json?: boolean;
  verbose?: boolean;
  model?: string;
  offline?: boolean;
  modelDir?: string;
  color?: string;
}

/**
 * What a search (or ask, or chat) that found nothing prints on stderr: the reason, a hint per
 * filter that names nothing in the index, and, given the vault, how many notes changed on disk
 * since the last index (a note written since cannot be found yet).
 *
 * @example
 * ```ts
 * for (const line of await noResults(store, { tags: ["nosuch"] }, res.reason, loc)) err(line);
 * // no results: no chunk passes the filters
 * // vault-rag: no note has the tag "nosuch"; list them with `vault-rag tags`
 * ```
 */
export async function noResults(
  store: Store,
  request: SearchRequest,
  reason: string | undefined,
  vault?: Location,
): Promise<string[]> {
  const lines = [
    `no results: ${withLocatedVault(reason ?? "no chunk matches the query")}`,
    ...(await noResultHints(store, request, "cli", vault?.vault)),
  ];
  const stale = vault && (await staleNotesHint(store, vault));
  if (stale) lines.push(stale);
  return lines;
}

/** The line that says notes changed on disk since the last index, with the command that takes them in, or undefined when none did. */
async function staleNotesHint(store: Store, vault: Location): Promise<string | undefined> {
  const { staleInVault } = await import("../../indexing/stale.js"); // brings the Markdown reader: only here
  const n = staleInVault(vault.vault, await store.notes());
  return n
    ? `vault-rag: ${n === 1 ? "a note" : `${n} notes`} changed on disk since the last index (new, edited or deleted) — run \`${indexCommand(vault)}\` and search again`
    : undefined;
}

/** The search request that search flags mean (the same request the library and MCP build). */
export function searchRequest(o: SearchFlags): SearchRequest {
  return {
    topK: o.topK,
    perNote: o.perNote,
    oversample: o.oversample,
    tags: o.tag,
    folder: o.folder,
    topFolder: o.topFolder,
    since: o.since,
    until: o.until,
    where: o.where,
    whereDocument: o.whereDocument,
    minRatio: o.minRatio,
    mode: o.mode,
    expand: o.expand,
    spell: o.spell,
  };
}

/**
 * `vault-rag search <query...>`. Hits go to stdout (`path:line  breadcrumb` and a snippet, coloured
 * on a terminal); no hits exit 1, as grep and ripgrep do, with hints on stderr.
 */
export async function runSearch(words: string[], o: SearchFlags): Promise<void> {
  const color = useColor(o.color, process.stdout);
  const loc = locate(o);
  const log = stderrLogger(!!o.verbose);
  const request = searchRequest(o);
  const options = searchOptionsOf(request);
  const { store, embedder } = await openForQuery(loc, {
    model: o.model,
    log,
    offline: o.offline,
    modelDir: o.modelDir,
  });
  if (o.verbose)
    err(
      `index: ${loc.shown} (${embedder.id})${store instanceof ChromaStore ? `; dense: Chroma server; keyword: ${(await store.detectSearchApi(), store.keywordPath)}` : ""}`,
    );
  try {
    const query = words.join(" ");
    const res = await search({ store, embedder }, query, options);
    if (o.json) out(JSON.stringify(res.hits.map(hitJson), null, 2));
    else if (res.hits.length) {
      const link = useLinks(color, process.stdout) ? noteLinker(loc.vault) : undefined;
      // the synonyms a search also matched are marked too: a hit that says "holiday" for "vacation"
      const marked = res.expansion ? `${query} ${res.expansion.phrases.join(" ")}` : query;
      out(formatHits(res.hits, { query: marked, color, verbose: o.verbose, link }));
    }
    // a hit from a note edited or deleted since the last index shows text the note no longer holds;
    // told only when the vault is known to be the index's (named, or the index is the one inside it)
    const vaultKnown = isVaultKnown(o, loc);
    if (res.hits.length && vaultKnown) {
      const warning = staleHitsWarning(
        staleHits(
          loc.vault,
          res.hits.map((h) => ({ path: h.path, mtime: h.meta.mtime })),
        ),
      );
      if (warning) err(printable(warning));
    }
    if (res.notice) err(`note: ${res.notice}`);
    // a word no passage holds may be in a note edited since the last index: say so, as with no hits
    if ((res.notice === NO_WORDS_NOTICE || res.spelling) && vaultKnown) {
      const stale = await staleNotesHint(store, loc);
      if (stale) err(stale);
    }
    if (!res.hits.length) {
      for (const line of await noResults(store, request, res.reason, vaultKnown ? loc : undefined)) err(line);
      process.exitCode = 1;
    }
    if (o.verbose) {
      const off = wordNetProblem();
      if (o.expand === false) err("synonyms: off (--no-expand)");
      else if (off) err(`synonyms: off — ${off.replace(/^vault-rag: /, "")}`);
      else if (res.expansion)
        err(
          `synonyms: ${res.expansion.phrases.join(", ")} (weight ${res.expansion.weight.toFixed(2)} beside the question's words: the best keyword hit holds ${Math.round(res.expansion.coverage * 100)}% of them)`,
        );
      else if (o.mode !== "dense")
        // no plan: the best hit holds every word, or no synonym of the missing ones is in the notes
        err(
          res.hits.some((h) => (o.mode === "keyword" ? true : h.ranks?.keyword !== undefined))
            ? "synonyms: none added (the best keyword hit holds the question's words, or the notes use none of their synonyms)"
            : // told from the hits shown: a keyword match fused below them is not seen here
              "synonyms: none added (no hit shown holds the question's words, nor a synonym of them)",
        );
      if (o.mode !== "dense") {
        const pairs = proximityPairs(query);
        err(
          pairs.length
            ? `near pairs: ${pairs.map((p) => p.join("·")).join(", ")} (each ${SEARCH_DEFAULTS.proximity} × its BM25 where both words stand within ${NEAR_WINDOW} words of each other)`
            : "near pairs: none (fewer than two words to pair)",
        );
        const by = [...new Set(res.hits.filter((h) => h.backlinked).map((h) => h.path))];
        err(
          by.length
            ? `backlink text: ${by.join(", ")} also matched by what other notes say where they link to ${by.length === 1 ? "it" : "them"} (${SEARCH_DEFAULTS.backlinks} × that BM25)`
            : "backlink text: no hit matched by what other notes say where they link to it",
        );
      }
      err(`embed ${res.timings.embedMs.toFixed(0)} ms, retrieve ${res.timings.retrieveMs.toFixed(0)} ms`);
    }
  } finally {
    await store.close();
  }
}

/** `vault-rag tags` and `vault-rag folders`: what the index holds, with note counts. */
export async function runList(
  what: "tags" | "folders",
  o: { vault?: string; db?: string; json?: boolean },
): Promise<void> {
  const { store } = await openForQuery(locate(o), { log: stderrLogger(false) });
  try {
    const rows =
      what === "tags"
        ? (await store.listTags()).map((r) => ({ name: r.tag, notes: r.notes }))
        : (await store.listFolders()).map((r) => ({ name: r.folder, notes: r.notes }));
    if (o.json)
      out(
        JSON.stringify(
          what === "tags"
            ? rows.map((r) => ({ tag: r.name, notes: r.notes }))
            : rows.map((r) => ({ folder: r.name, notes: r.notes })),
          null,
          2,
        ),
      );
    else if (!rows.length)
      // nothing on stdout, as for no hits; the reason on stderr
      err(
        what === "tags"
          ? "no tags: no note in the index has a #tag or frontmatter tags"
          : "no folders: the index has no notes yet",
      );
    else {
      const width = Math.max(0, ...rows.map((r) => String(r.notes).length));
      out(
        rows
          .map(
            (r) =>
              `${String(r.notes).padStart(width)}  ${what === "folders" && r.name === "" ? "(vault root)" : printable(r.name)}`,
          )
          .join("\n"),
      );
    }
  } finally {
    await store.close();
  }
}
