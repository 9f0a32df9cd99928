import { ChromaStore } from "../../store/index.js";
import { andWhere, buildFilter, search } from "../../search/index.js";
import { locate, openForQuery } from "../open.js";
import { formatHits, hitJson } from "../output.js";
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
  json?: boolean;
  verbose?: boolean;
  model?: string;
  offline?: boolean;
  modelDir?: string;
}

/** Turns search flags into `search()` options. */
export function searchOptions(o: SearchFlags) {
  const where = andWhere(buildFilter({ tags: o.tag, folder: o.folder, topFolder: o.topFolder, since: o.since, until: o.until }), o.where);
  return { topK: o.topK, perNote: o.perNote, oversample: o.oversample, where, whereDocument: o.whereDocument, minRatio: o.minRatio, mode: o.mode };
}

/** `vault-rag search <query...>`. */
export async function runSearch(words: string[], o: SearchFlags): Promise<void> {
  const loc = locate(o);
  const log = stderrLogger(!!o.verbose);
  const options = searchOptions(o);
  const { store, embedder } = await openForQuery(loc, { model: o.model, log, offline: o.offline, modelDir: o.modelDir });
  if (o.verbose) err(`index: ${loc.shown} (${embedder.id})${store instanceof ChromaStore ? `; dense: Chroma server; keyword: ${(await store.detectSearchApi(), store.keywordPath)}` : ""}`);
  try {
    const res = await search({ store, embedder }, words.join(" "), options);
    if (o.json) out(JSON.stringify(res.hits.map(hitJson), null, 2));
    else if (!res.hits.length) out(`no results: ${res.reason}`);
    else out(formatHits(res.hits));
    if (o.verbose) err(`embed ${res.timings.embedMs.toFixed(0)} ms, retrieve ${res.timings.retrieveMs.toFixed(0)} ms`);
  } finally {
    await store.close();
  }
}
