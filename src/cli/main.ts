#!/usr/bin/env node
import fs from "node:fs";
import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { chunkNote, CHUNK_DEFAULTS } from "../chunk/index.js";
import { createEmbedder, DEFAULT_MODEL } from "../embed/index.js";
import { exitCodeFor, VaultRagError } from "../errors.js";
import { indexVault } from "../index/index.js";
import { collectingLogger, type Logger } from "../log.js";
import { andWhere, buildFilter, search, SEARCH_DEFAULTS } from "../search/index.js";
import { readNote, walkVault } from "../vault/index.js";
import { locate, modelSpec, openForQuery } from "./open.js";
import { formatHits, hitJson } from "./output.js";
import { progressReporter } from "./progress.js";

const out = (s: string) => process.stdout.write(s + "\n");
const err = (s: string) => process.stderr.write(s + "\n");

function stderrLogger(verbose: boolean): Logger {
  return {
    warn: (_code, message) => err(`warning: ${message.replace(/^vault-rag: /, "")}`),
    info: (m) => verbose && err(m),
    debug: (m) => verbose && err(m),
  };
}

const int = (name: string) => (v: string) => {
  if (!/^\d+$/.test(v)) throw new InvalidArgumentError(`${name} must be a whole number, got "${v}"`);
  return Number(v);
};
const ratio = (v: string) => {
  const n = Number(v);
  if (!(n >= 0 && n <= 1) || v.trim() === "") throw new InvalidArgumentError(`must be a number from 0 to 1, got "${v}"`);
  return n;
};
const json = (flag: string) => (v: string) => {
  try {
    return JSON.parse(v) as Record<string, unknown>;
  } catch {
    throw new InvalidArgumentError(`${flag} must be JSON, e.g. '{"folder": "kitchen"}', got ${v}`);
  }
};
const collect = (v: string, prev: string[] = []) => [...prev, v];

interface SearchFlags {
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
}

/** Adds the search flags shared by `search` (and later `ask`). */
export function addSearchFlags(cmd: Command): Command {
  return cmd
    .option("--vault <dir>", "vault folder (default: $VAULT_RAG_VAULT, else the nearest folder holding .vault-rag/, else the working directory)")
    .option("--db <path>", "index file (default: $VAULT_RAG_DB, else <vault>/.vault-rag/index.db)")
    .option("-k, --top-k <n>", "number of results", int("--top-k"), SEARCH_DEFAULTS.topK)
    .option("--per-note <n>", "at most this many chunks from one note", int("--per-note"), SEARCH_DEFAULTS.perNote)
    .option("--oversample <n>", "candidates fetched per result before the per-note cap", int("--oversample"), SEARCH_DEFAULTS.oversample)
    .option("--tag <tag>", "only notes with this tag (repeat for several, all must match)", collect)
    .option("--folder <folder>", "only notes directly in this folder (vault-relative)")
    .option("--top-folder <folder>", "only notes under this top-level folder")
    .option("--since <when>", "only notes modified since: 90d, 2w, 12h, 2026-06-01 or an ISO time")
    .option("--until <when>", "only notes modified until (same forms as --since)")
    .option("--where <json>", "a Chroma where filter, e.g. '{\"word_count\": {\"$gt\": 50}}'", json("--where"))
    .option("--where-document <json>", "a Chroma whereDocument filter, e.g. '{\"$contains\": \"DRV8833\"}'", json("--where-document"))
    .option("--min-ratio <r>", "drop hits scoring below r × the best hit's score", ratio)
    .addOption(new Option("--mode <mode>", "retrieval mode").choices(["dense", "keyword", "hybrid"]).default(SEARCH_DEFAULTS.mode))
    .option("--model <id>", "embedding model; must match the index's")
    .option("--json", "print JSON")
    .option("--verbose", "say which index is used");
}

export function buildProgram(): Command {
  const program = new Command();
  program
    .name("vault-rag")
    .description("Local-first search over a folder of Markdown notes.")
    .version("0.1.0")
    .showHelpAfterError("(run with --help for usage)")
    .configureOutput({ writeErr: (s) => process.stderr.write(s.startsWith("error:") ? `vault-rag: ${s}` : s) })
    .exitOverride();

  program
    .command("index")
    .description("Index a vault (incremental: only changed notes are re-embedded)")
    .argument("[vault]", "vault folder (see --vault on search)")
    .option("--full", "rebuild the whole index into a new file, swapped in when complete")
    .option("--model <id>", `embedding model: use-lite (bundled, offline), ollama:<model>, openai:<model>`)
    .option("--db <path>", "index file (default: $VAULT_RAG_DB, else <vault>/.vault-rag/index.db)")
    .option("--json", "print the summary as JSON")
    .option("--quiet", "no progress output")
    .option("--verbose", "more detail")
    .addHelpText("after", "\nExamples:\n  vault-rag index ~/notes\n  vault-rag index --full --model ollama:nomic-embed-text\n")
    .action(async (vaultArg: string | undefined, o: { full?: boolean; model?: string; db?: string; json?: boolean; quiet?: boolean; verbose?: boolean }) => {
      const loc = locate({ vault: vaultArg, db: o.db });
      const log = collectingLogger(stderrLogger(!!o.verbose));
      let spec = o.model;
      if (!spec && fs.existsSync(loc.db)) {
        // keep the index's own model unless asked otherwise
        try {
          const { store, manifest } = openForQuery(loc, { log });
          spec = modelSpec(manifest);
          store.close();
        } catch {
          spec = undefined;
        }
      }
      const embedder = createEmbedder(spec ?? DEFAULT_MODEL, { log });
      if (o.verbose) err(`vault: ${loc.vault}\nindex: ${loc.db}\nmodel: ${embedder.id}`);
      const progress = progressReporter(process.stderr, !o.quiet && !o.json);
      const summary = await indexVault(loc.vault, loc.db, embedder, {
        full: o.full,
        log,
        onProgress: (phase, done, total) => phase === "index" && progress.update(done, total),
      });
      progress.stop();
      if (o.json) out(JSON.stringify({ ...summary, warnings: log.warnings }, null, 2));
      else {
        out(
          `indexed ${loc.vault} → ${summary.dbPath}\n` +
            `notes: ${summary.added} added, ${summary.updated} updated, ${summary.deleted} deleted, ${summary.unchanged} unchanged${summary.failed ? `, ${summary.failed} failed` : ""}\n` +
            `chunks: ${summary.chunks} in the index (${summary.embedded} embedded, ${summary.cached} from cache) in ${summary.seconds.toFixed(1)} s`,
        );
      }
      if (summary.failed) process.exitCode = 1;
    });

  addSearchFlags(
    program
      .command("search")
      .description("Search the index in plain words")
      .argument("<query...>", "what you are looking for")
      .addHelpText(
        "after",
        '\nExamples:\n  vault-rag search "how do the SMARS motors work"\n  vault-rag search --tag pico "how do I save power"\n  vault-rag search --folder kitchen --since 30d bread\n  vault-rag search --where \'{"word_count": {"$gt": 40}}\' --json motors\n',
      ),
  ).action(async (words: string[], o: SearchFlags) => {
    const loc = locate(o);
    const log = stderrLogger(!!o.verbose);
    const where = andWhere(buildFilter({ tags: o.tag, folder: o.folder, topFolder: o.topFolder, since: o.since, until: o.until }), o.where);
    const { store, embedder } = openForQuery(loc, { model: o.model, log });
    if (o.verbose) err(`index: ${loc.db} (${embedder.id})`);
    try {
      const res = await search({ store, embedder }, words.join(" "), {
        topK: o.topK,
        perNote: o.perNote,
        oversample: o.oversample,
        where,
        whereDocument: o.whereDocument,
        minRatio: o.minRatio,
        mode: o.mode,
      });
      if (o.json) out(JSON.stringify(res.hits.map(hitJson), null, 2));
      else if (!res.hits.length) out(`no results: ${res.reason}`);
      else out(formatHits(res.hits));
    } finally {
      store.close();
    }
  });

  program
    .command("status")
    .description("Show the index: path, model, counts, last indexed, notes changed since")
    .option("--vault <dir>", "vault folder")
    .option("--db <path>", "index file")
    .option("--json", "print JSON")
    .addHelpText("after", "\nExamples:\n  vault-rag status\n  vault-rag status --vault ~/notes --json\n")
    .action((o: { vault?: string; db?: string; json?: boolean }) => {
      const loc = locate(o);
      const { store, manifest } = openForQuery(loc, { log: stderrLogger(false) });
      try {
        const counts = store.count();
        const known = store.notes();
        let stale = 0;
        let files: { path: string; mtime: number; size: number }[] = [];
        try {
          files = walkVault(loc.vault);
        } catch {
          files = [];
        }
        const seen = new Set<string>();
        for (const f of files) {
          seen.add(f.path);
          const k = known.get(f.path);
          if (!k || k.mtime !== f.mtime || k.size !== f.size) stale++;
        }
        for (const p of known.keys()) if (!seen.has(p)) stale++;
        const info = {
          vault: loc.vault,
          index: loc.db,
          model: modelSpec(manifest),
          dimensions: manifest.embedder.dimensions,
          notes: counts.notes,
          chunks: counts.chunks,
          lastIndexed: manifest.updatedAt,
          stale,
        };
        if (o.json) out(JSON.stringify(info, null, 2));
        else
          out(
            `index:        ${info.index}\nvault:        ${info.vault}\nmodel:        ${info.model} (${info.dimensions}-d)\nnotes:        ${info.notes}\nchunks:       ${info.chunks}\nlast indexed: ${info.lastIndexed}\nstale:        ${info.stale} note(s) changed on disk since${info.stale ? " — run `vault-rag index`" : ""}`,
          );
      } finally {
        store.close();
      }
    });

  program
    .command("chunks")
    .description("Print how the notes of a vault are cut into chunks (no index needed)")
    .argument("[vault]", "vault folder")
    .option("--note <path>", "only this note (vault-relative path)")
    .option("--json", "print JSON")
    .addHelpText("after", `\nChunks hold at most ${CHUNK_DEFAULTS.maxWords} words (overlap ${CHUNK_DEFAULTS.overlapWords}).\n\nExamples:\n  vault-rag chunks examples/vault --note robots/SMARS.md\n`)
    .action((vaultArg: string | undefined, o: { note?: string; json?: boolean }) => {
      const loc = locate({ vault: vaultArg });
      const log = stderrLogger(false);
      const files = walkVault(loc.vault, log).filter((f) => !o.note || f.path === o.note);
      if (o.note && !files.length) throw new VaultRagError("usage", `vault-rag: no note "${o.note}" in ${loc.vault} — give a vault-relative path like robots/SMARS.md`);
      const all = [];
      for (const f of files) {
        const note = readNote(f, log);
        if (!note) continue;
        for (const c of chunkNote(note)) {
          if (o.json) all.push({ id: c.id, text: c.text, ...c.meta });
          else out(`── ${c.meta.section}  (${c.meta.path}:${c.meta.start_line}-${c.meta.end_line}, ${c.meta.word_count} words)\n${c.text}\n`);
        }
      }
      if (o.json) out(JSON.stringify(all, null, 2));
    });

  return program;
}

async function main(): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(process.argv);
  } catch (e) {
    if (e instanceof CommanderError) {
      process.exitCode = e.exitCode === 0 ? 0 : 2;
      return;
    }
    if (e instanceof VaultRagError) {
      err(e.message);
      process.exitCode = exitCodeFor(e);
      return;
    }
    err(`vault-rag: unexpected error: ${(e as Error).stack ?? e}`);
    process.exitCode = 1;
  }
}

await main();
