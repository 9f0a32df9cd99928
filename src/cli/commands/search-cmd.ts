import type { Fix } from "../../errors.js";
import type { SearchExplain, VaultHandle, VaultSearchResult } from "../../library.js";
import { NO_WORDS_NOTICE } from "../../core/defaults.js";
import { cliFix, indexCommand } from "../../render/fix.js";
import { coverageNotice, ownNotice } from "../../render/coverage.js";
import { hintLines } from "../../render/hints.js";
import { staleHitsWarning } from "../../render/stale.js";
import { useColor } from "../color.js";
import { searchRequest, type SearchFlags } from "../flags.js";
import { printable } from "../../shared/snippet-text.js";
import { formatHits } from "../output.js";
import { noteLinker, useLinks } from "../hyperlink.js";
import { err, out, stderrLogger } from "../io.js";
import { setExitCode, stdoutTerminal } from "../context.js";
import { isVaultKnown, locate } from "../open.js";
import { openReader } from "../resident.js";

/**
 * What a search (or ask, or chat) that found nothing prints on stderr: the reason and its fix, a
 * hint per filter that names nothing in the index, and, when the vault is known to be the index's,
 * how many notes changed on disk since the last index (a note written since cannot be found yet).
 *
 * @example
 * ```ts
 * for (const line of await noResults(v, res, true)) err(line);
 * // no results: no chunk passes the filters
 * // vault-rag: no note has the tag "nosuch"; list them with `vault-rag tags`
 * ```
 */
export async function noResults(
  v: VaultHandle,
  res: { reason?: string; fix?: Fix; why?: VaultSearchResult["why"] },
  vaultKnown: boolean,
): Promise<string[]> {
  const reason = res.reason ?? "no chunk matches the query";
  const lines = [
    `no results: ${res.fix ? `${reason} — ${cliFix(res.fix)}` : reason}`,
    ...hintLines(res.why ?? [], "cli"),
  ];
  const stale = vaultKnown ? await changedNotesHint(v) : undefined;
  if (stale) lines.push(stale);
  return lines;
}

/** The line that says notes changed on disk since the last index, with the command that takes them in, or undefined when none did. */
async function changedNotesHint(v: VaultHandle): Promise<string | undefined> {
  const n = await v.changed();
  return n
    ? `vault-rag: ${n === 1 ? "a note" : `${n} notes`} changed on disk since the last index (new, edited or deleted) — run \`${indexCommand({ kind: "reindex", db: v.db, vault: v.vault })}\` and search again`
    : undefined;
}

/**
 * `vault-rag search <query...>`. Hits go to stdout (`path:line  breadcrumb` and a snippet, coloured
 * on a terminal); no hits exit 1, as grep and ripgrep do, with hints on stderr.
 */
export async function runSearch(words: string[], o: SearchFlags): Promise<void> {
  const color = useColor(o.color, stdoutTerminal());
  const loc = locate(o);
  const request = searchRequest(o);
  const v = await openReader(loc, o, {
    model: o.model,
    log: stderrLogger(!!o.verbose),
    offline: o.offline,
    modelDir: o.modelDir,
    // the bundled model loads on a thread of its own while this one opens the index and runs the
    // keyword query: a cold search waits for the longer of the two, not for both
    queryThread: request.mode !== "keyword",
  });
  try {
    const query = words.join(" ");
    const res = await v.search(query, { ...request, explain: !!o.verbose });
    if (res.explain) err(indexLine(res.explain));
    if (o.json) out(JSON.stringify(res.hits, null, 2));
    else if (res.hits.length) {
      const link = useLinks(color, stdoutTerminal()) ? noteLinker(loc.vault) : undefined;
      // the synonyms a search also matched are marked too: a hit that says "holiday" for "vacation"
      const marked = res.expansion ? `${query} ${res.expansion.phrases.join(" ")}` : query;
      out(formatHits(res.hits, { query: marked, color, verbose: o.verbose, link }));
    }
    // a hit from a note edited or deleted since the last index shows text the note no longer holds
    // (the core tells only when the vault is known to be the index's)
    const warning = res.stale && staleHitsWarning(res.stale);
    if (warning) err(printable(warning));
    if (res.denseCoverage) err(`note: ${coverageNotice(res.denseCoverage, "cli")}`);
    const notice = ownNotice(res);
    if (notice) err(`note: ${notice}`);
    const vaultKnown = isVaultKnown(o, loc);
    // a word no passage holds may be in a note edited since the last index: say so, as with no hits
    if (res.hits.length && (notice === NO_WORDS_NOTICE || res.spelling) && vaultKnown) {
      const stale = await changedNotesHint(v);
      if (stale) err(stale);
    }
    if (!res.hits.length) {
      for (const line of await noResults(v, res, vaultKnown)) err(line);
      setExitCode(1);
    }
    if (res.explain) for (const line of explainLines(res.explain, res.timings)) err(line);
  } finally {
    await v.close();
  }
}

/** `--verbose`'s first line: which index, with which model (and on Chroma, which keyword index). */
function indexLine(x: SearchExplain): string {
  return `index: ${x.index} (${x.model})${x.chroma ? `; dense: Chroma server; keyword: ${x.chroma.keywordPath}` : ""}`;
}

/** `--verbose`'s lines after the hits: synonyms, near pairs, backlink text, unreadable passages, timings. */
function explainLines(x: SearchExplain, t: { embedMs: number; retrieveMs: number; rerankMs?: number }): string[] {
  const lines: string[] = [];
  const s = x.synonyms;
  if (s?.state === "off") lines.push("synonyms: off (--no-expand)");
  else if (s?.state === "unavailable") lines.push(`synonyms: off — ${s.why}`);
  else if (s?.state === "added")
    lines.push(
      `synonyms: ${s.phrases.join(", ")} (weight ${s.weight.toFixed(2)} beside the question's words: the best keyword hit holds ${Math.round(s.coverage * 100)}% of them)`,
    );
  else if (s?.state === "none")
    lines.push(
      s.held
        ? "synonyms: none added (the best keyword hit holds the question's words, or the notes use none of their synonyms)"
        : "synonyms: none added (no hit shown holds the question's words, nor a synonym of them)",
    );
  if (x.near)
    lines.push(
      x.near.pairs.length
        ? `near pairs: ${x.near.pairs.map((p) => p.join("·")).join(", ")} (each ${x.near.weight} × its BM25 where both words stand within ${x.near.window} words of each other)`
        : "near pairs: none (fewer than two words to pair)",
    );
  if (x.backlinks) {
    const by = x.backlinks.paths;
    lines.push(
      by.length
        ? `backlink text: ${by.join(", ")} also matched by what other notes say where they link to ${by.length === 1 ? "it" : "them"} (${x.backlinks.weight} × that BM25)`
        : "backlink text: no hit matched by what other notes say where they link to it",
    );
  }
  if (x.unread)
    lines.push(
      `dense: ${x.unread.passages === 1 ? "1 candidate" : `${x.unread.passages} candidates`} in a language the model (${x.model}) cannot read, ranked by ${x.unread.passages === 1 ? "its" : "their"} words instead`,
    );
  if (x.rerank)
    lines.push(
      `rerank: ${x.rerank.model} reordered the top ${x.rerank.candidates} candidates (each hit: reranked #before → #after, its score)`,
    );
  const rerank = t.rerankMs !== undefined ? `, rerank ${t.rerankMs.toFixed(0)} ms` : "";
  lines.push(`embed ${t.embedMs.toFixed(0)} ms, retrieve ${t.retrieveMs.toFixed(0)} ms${rerank}`);
  return lines;
}

/** `vault-rag tags` and `vault-rag folders`: what the index holds, with note counts. */
export async function runList(
  what: "tags" | "folders",
  o: { vault?: string; db?: string; json?: boolean; daemon?: boolean },
): Promise<void> {
  const v = await openReader(locate(o), o, { log: stderrLogger(false) });
  try {
    const rows =
      what === "tags"
        ? (await v.tags()).map((r) => ({ name: r.tag, notes: r.notes }))
        : (await v.folders()).map((r) => ({ name: r.folder, notes: r.notes }));
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
    await v.close();
  }
}
