/** The API's reading routes: search, a note, related notes, tags, folders and status. */
import path from "node:path";
import type { Context, Hono } from "hono";
import { VaultRagError } from "../errors.js";
import { getNoteInput, propsInput, relatedInput, searchInput, searchRequestOf, validate } from "../requests/index.js";
import type { RelatedReply, SearchReply, StatusReply } from "../shared/api.js";
import type { AppOptions } from "./app.js";
import { readParams, SEARCH_QUERY, SEARCH_QUERY_NAMES } from "./params.js";
import { lastCountStatus } from "./status-count.js";
import { readAttachmentBytes } from "../vault/index.js";

/**
 * Adds the reading routes to the app: `GET /api/search`, `/api/note`, `/api/file`, `/api/related`, `/api/tags`,
 * `/api/folders`, `/api/props` and `/api/status`.
 *
 * @example
 * ```ts
 * readRoutes(app, o);
 * ```
 */
export function readRoutes(app: Hono, o: AppOptions): void {
  const v = o.vault;
  app.get("/api/search", async (c) => {
    const raw = readParams(new URL(c.req.url).searchParams, SEARCH_QUERY);
    if (raw.query === undefined)
      throw new VaultRagError("usage", `vault-rag: the search query is empty — give it as ?q=…`);
    const a = validate(searchInput, raw, SEARCH_QUERY_NAMES);
    const { query, ...rest } = a;
    const { hits, reason, hints, expansion, spelling, notice, stale, denseCoverage } = await v.search(
      query,
      searchRequestOf(rest),
    );
    // no hits: why, and the hints the CLI prints and MCP returns (the folder or tag that exists);
    // hits found through synonyms say which, as --verbose does; a question ranked by keywords alone
    // says so; hits from notes changed or deleted since the last index are named
    return c.json(
      (hits.length
        ? {
            hits,
            ...(expansion ? { expansion } : {}),
            ...(spelling ? { spelling } : {}),
            ...(notice ? { notice } : {}),
            ...(denseCoverage ? { denseCoverage } : {}),
            ...(stale ? { stale } : {}),
          }
        : {
            hits: [],
            reason,
            hints: hints ?? [],
            ...(notice ? { notice } : {}),
            ...(denseCoverage ? { denseCoverage } : {}),
          }) satisfies SearchReply,
    );
  });

  app.get("/api/note", async (c) => {
    const a = validate(
      getNoteInput,
      readParams(new URL(c.req.url).searchParams, { path: ["path", "string"], heading: ["heading", "string"] }),
    );
    return c.json(await v.note(a.path, { heading: a.heading }));
  });

  // an attachment's bytes: the web app opens a PDF hit in the browser's viewer, at its page
  app.get("/api/file", (c) => {
    const a = readParams(new URL(c.req.url).searchParams, { path: ["path", "string"] });
    if (typeof a.path !== "string" || !a.path)
      throw new VaultRagError("usage", "vault-rag: the file's path is missing — give it as ?path=papers/x.pdf");
    const { bytes, mediaType } = readAttachmentBytes(v.vault, a.path);
    return c.body(new Uint8Array(bytes), 200, {
      "content-type": mediaType,
      "content-disposition": `inline; filename*=UTF-8''${encodeURIComponent(path.basename(a.path))}`,
    });
  });

  app.get("/api/related", async (c) => {
    const a = validate(
      relatedInput,
      readParams(new URL(c.req.url).searchParams, {
        path: ["path", "string"],
        k: ["k", "number"],
        unlinked_only: ["unlinked_only", "boolean"],
      }),
    );
    // a client that goes away stops the comparison of a long note
    const related: RelatedReply = await v.related(a.path, {
      k: a.k,
      unlinkedOnly: a.unlinked_only,
      signal: c.req.raw.signal,
    });
    return c.json(related);
  });

  const noParams = (c: Context) => readParams(new URL(c.req.url).searchParams, {});
  app.get("/api/tags", async (c) => (noParams(c), c.json(await v.tags())));
  app.get("/api/folders", async (c) => (noParams(c), c.json(await v.folders())));
  app.get("/api/props", async (c) => {
    const a = validate(propsInput, readParams(new URL(c.req.url).searchParams, { name: ["name", "string"] }));
    return c.json(a.name === undefined ? await v.props() : await v.props(a.name));
  });
  const statusNow = lastCountStatus(v, () => !!o.indexing?.());
  app.get("/api/status", async (c) => {
    noParams(c);
    let status;
    try {
      status = await statusNow();
    } catch (e) {
      // a first index being built (by --watch, or by another process) holds the lock: say so
      if (!(e instanceof VaultRagError) || e.code !== "index_locked") throw e;
      status = {
        vault: v.vault,
        index: v.db,
        model: null,
        dimensions: 0,
        notes: 0,
        chunks: 0,
        lastIndexed: null,
        stale: 0,
      };
      return c.json({
        ...status,
        name: path.basename(v.vault),
        llm: o.llm,
        watching: !!o.watching,
        indexing: o.indexing?.() ?? { phase: "locked", done: 0, total: 0 },
      } satisfies StatusReply);
    }
    const hint = await v.modelHint();
    return c.json({
      ...status,
      ...(hint ? { modelHint: hint } : {}),
      name: path.basename(v.vault),
      llm: o.llm,
      watching: !!o.watching,
      indexing: o.indexing?.() ?? null,
    } satisfies StatusReply);
  });
}
