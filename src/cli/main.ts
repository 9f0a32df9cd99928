#!/usr/bin/env node
/**
 * The command line. Commands load their modules only when they run, so `vault-rag search` does not
 * pay for the Markdown parser and `--help` pays for nothing.
 */
import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { CHUNK_DEFAULTS } from "../chunk/defaults.js";
import { exitCodeFor, VaultRagError } from "../errors.js";
import { FILTER_EXAMPLES, SEARCH_DEFAULTS } from "../search/types.js";
import { DEFAULT_LLM } from "../answer/llm.js";
import { BUDGET_RANGE, CONTEXT_DEFAULTS } from "../answer/context.js";
import { err } from "./io.js";
import type { SearchFlags } from "./commands/search-cmd.js";

/** The largest count a count flag takes (`--top-k 99999999999999999999` is no count). */
const MAX_COUNT = 10_000;

const int =
  (name: string, min = 0, max = MAX_COUNT) =>
  (v: string) => {
    if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max)
      throw new InvalidArgumentError(`${name} must be a whole number from ${min} to ${max}, got "${v}"`);
    return Number(v);
  };
const port = (v: string) => {
  if (!/^\d+$/.test(v) || Number(v) > 65535)
    throw new InvalidArgumentError(`--port must be a whole number from 0 to 65535, got "${v}"`);
  return Number(v);
};
const ratio = (v: string) => {
  const n = Number(v);
  if (!(n >= 0 && n <= 1) || v.trim() === "")
    throw new InvalidArgumentError(`--min-ratio must be a number from 0 to 1, got "${v}"`);
  return n;
};
const json = (flag: string) => (v: string) => {
  const e = `'${FILTER_EXAMPLES[flag === "--where-document" ? "whereDocument" : "where"]}'`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(v);
  } catch {
    throw new InvalidArgumentError(`${flag} must be JSON, e.g. ${e}, got ${v}`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new InvalidArgumentError(`${flag} must be a JSON object, e.g. ${e}, got ${v}`);
  return parsed as Record<string, unknown>;
};
const collect = (v: string, prev: string[] = []) => [...prev, v];

/** What `--help` says of an index's own model that sends text off this machine. */
const REMOTE_HELP =
  "\nAn index names the model that built it, and the index travels with the vault: a model that sends text off this machine (openai:<model>, or ollama:<model> at an address other than loopback) is used only when --model or $VAULT_RAG_ALLOW_REMOTE names it — a comma-separated list of models, e.g. VAULT_RAG_ALLOW_REMOTE=openai:text-embedding-3-small or ollama:*. Otherwise the command refuses and sends nothing.\n";

/** Adds the search flags shared by `search` and the commands that retrieve. */
export function addSearchFlags(cmd: Command): Command {
  return cmd
    .option(
      "--vault <dir>",
      "vault folder (default: $VAULT_RAG_VAULT, else the nearest folder holding .vault-rag/, else the working directory)",
    )
    .option(
      "--db <path>",
      "index file or chroma://host:port/<collection> (default: $VAULT_RAG_DB, else <vault>/.vault-rag/index.db)",
    )
    .option("-k, --top-k <n>", "number of results", int("--top-k", 1), SEARCH_DEFAULTS.topK)
    .option("--per-note <n>", "at most this many chunks from one note", int("--per-note", 1), SEARCH_DEFAULTS.perNote)
    .option(
      "--oversample <n>",
      "candidates fetched per result before the per-note cap",
      int("--oversample", 1),
      SEARCH_DEFAULTS.oversample,
    )
    .option("--tag <tag>", "only notes with this tag (repeat for several, all must match)", collect)
    .option("--folder <folder>", "only notes directly in this folder (vault-relative)")
    .option("--top-folder <folder>", "only notes under this top-level folder")
    .option("--since <when>", "only notes modified since: 90d, 2w, 12h, 2026-06-01 or an ISO time")
    .option("--until <when>", "only notes modified until (same forms as --since)")
    .option("--where <json>", 'a Chroma where filter, e.g. \'{"word_count": {"$gt": 50}}\'', json("--where"))
    .option(
      "--where-document <json>",
      'a Chroma whereDocument filter, e.g. \'{"$contains": "DRV8833"}\'',
      json("--where-document"),
    )
    .option("--min-ratio <r>", "drop hits scoring below r × the best hit's score", ratio)
    .option("--no-expand", "keyword matching on the question's own words only: no WordNet synonyms")
    .option("--no-spell", "keep misspelt words as typed: a word no note holds is not read as the vault's closest word")
    .addOption(
      new Option("--mode <mode>", "retrieval mode")
        .choices(["dense", "keyword", "hybrid"])
        .default(SEARCH_DEFAULTS.mode),
    )
    .option("--model <id>", "embedding model; must match the index's (see VAULT_RAG_ALLOW_REMOTE below)")
    .addHelpText("after", REMOTE_HELP)
    .option("--offline", "transformers models: never download (also HF_HUB_OFFLINE=1)")
    .option("--model-dir <dir>", "transformers models: a folder of models copied by hand")
    .option("--json", "print JSON")
    .addOption(
      new Option("--color <when>", "colour the hits: auto (on a terminal, unless NO_COLOR is set), always or never")
        .choices(["auto", "always", "never"])
        .default("auto"),
    )
    .option("--verbose", "say which index is used, scores and timings");
}

/** The search flags plus those of commands that answer with a model (`ask`, `chat`). */
function addAnswerFlags(cmd: Command): Command {
  return addSearchFlags(cmd)
    .option("--llm <spec>", "chat model: ollama:<model> or openai:<model>", DEFAULT_LLM)
    .option(
      "--budget <tokens>",
      `largest prompt, in estimated tokens (default ${CONTEXT_DEFAULTS.budgetTokens})`,
      int("--budget", BUDGET_RANGE.min, BUDGET_RANGE.max),
    );
}

/** Commands whose arguments are a query, which may hold words that start with a dash. */
const QUERY_COMMANDS = new Set(["search", "ask"]);

/** Builds the command-line program. */
export function buildProgram(): Command {
  const program = new Command();
  program
    .name("vault-rag")
    .description("Local-first search over a folder of Markdown notes.")
    .version("0.1.0")
    // a bad flag is one line, as every vault-rag error is: what, and where to read how
    .configureOutput({
      writeErr: (s) => {
        if (!s.startsWith("error:")) return process.stderr.write(s);
        const message = s
          .slice(7)
          .trim()
          .replace(/\s*\n\s*/g, " ");
        // `search tar -xzvf`: a query word that starts with a dash is read as a flag
        // (unless commander found the flag that was meant: `--tpo-k` is a typo of --top-k)
        const query =
          QUERY_COMMANDS.has(process.argv[2] ?? "") &&
          message.startsWith("unknown option") &&
          !/Did you mean/.test(message);
        return process.stderr.write(
          `vault-rag: ${message}${query ? ` — to search for a word that starts with a dash, put the query after the flags and --: vault-rag ${process.argv[2]} [flags] -- ${/'([^']*)'/.exec(message)?.[1] ?? "…"} …` : " (run with --help for usage)"}\n`,
        );
      },
    })
    .exitOverride();

  program
    .command("index")
    .description("Index a vault (incremental: only changed notes are re-embedded)")
    .argument("[vault]", "vault folder (see --vault on search)")
    .option("--vault <dir>", "vault folder (the same as the argument)")
    .option("--full", "rebuild the whole index into a new file, swapped in when complete")
    .option(
      "--model <id>",
      "embedding model: use-lite (bundled, offline), ollama:<model>, openai:<model>, transformers:<model> (see VAULT_RAG_ALLOW_REMOTE below)",
    )
    .option("--offline", "transformers models: never download (also HF_HUB_OFFLINE=1)")
    .option("--model-dir <dir>", "transformers models: a folder of models copied by hand")
    .option(
      "--db <path>",
      "index file or chroma://host:port/<collection> (default: $VAULT_RAG_DB, else <vault>/.vault-rag/index.db)",
    )
    .option("--json", "print the summary as JSON")
    .option("--quiet", "no progress output")
    .option("--verbose", "more detail")
    .addHelpText(
      "after",
      "\nExamples:\n  vault-rag index ~/notes\n  vault-rag index --full --model ollama:nomic-embed-text\n  vault-rag index ~/notes --db chroma://localhost:8000/notes   # on a Chroma server\n" +
        REMOTE_HELP,
    )
    .action(async (vault, o) =>
      (await import("./commands/index-cmd.js")).runIndex((await import("./open.js")).vaultFrom(vault, o.vault), o),
    );

  addSearchFlags(
    program
      .command("search")
      .description("Search the index in plain words")
      .argument("<query...>", "what you are looking for")
      .addHelpText(
        "after",
        '\nExamples:\n  vault-rag search "how do the SMARS motors work"\n  vault-rag search --tag pico "how do I save power"\n  vault-rag search --folder kitchen --since 30d bread\n  vault-rag search --where \'{"word_count": {"$gt": 40}}\' --json motors\n',
      ),
  ).action(async (words: string[], o: SearchFlags) => (await import("./commands/search-cmd.js")).runSearch(words, o));

  for (const what of ["tags", "folders"] as const)
    program
      .command(what)
      .description(
        what === "tags"
          ? "List the tags in the index, with how many notes carry each"
          : "List the folders in the index, with how many notes each holds",
      )
      .argument("[vault]", "vault folder (the same as --vault)")
      .option("--vault <dir>", "vault folder")
      .option("--db <path>", "index file, or chroma://host:port/<collection>")
      .option("--json", "print JSON")
      .addHelpText("after", `\nExamples:\n  vault-rag ${what}\n  vault-rag ${what} ~/notes --json\n`)
      .action(async (vault, o) =>
        (await import("./commands/search-cmd.js")).runList(what, {
          ...o,
          vault: (await import("./open.js")).vaultFrom(vault, o.vault),
        }),
      );

  program
    .command("status")
    .description("Show the index: path, model, counts, last indexed, notes changed since")
    .argument("[vault]", "vault folder (the same as --vault)")
    .option("--vault <dir>", "vault folder")
    .option("--db <path>", "index file, or chroma://host:port/<collection>")
    .option("--json", "print JSON")
    .addHelpText("after", "\nExamples:\n  vault-rag status\n  vault-rag status --vault ~/notes --json\n")
    .action(async (vault, o) =>
      (await import("./commands/status-cmd.js")).runStatus({
        ...o,
        vault: (await import("./open.js")).vaultFrom(vault, o.vault),
      }),
    );

  program
    .command("chunks")
    .description("Print how the notes of a vault are cut into chunks (no index needed)")
    .argument("[vault]", "vault folder")
    .option("--vault <dir>", "vault folder (the same as the argument)")
    .option("--note <path>", "only this note (vault-relative path)")
    .option("--json", "print JSON")
    .addHelpText(
      "after",
      `\nChunks hold at most ${CHUNK_DEFAULTS.maxWords} words (overlap ${CHUNK_DEFAULTS.overlapWords}).\n\nExamples:\n  vault-rag chunks examples/vault --note robots/SMARS.md\n`,
    )
    .action(async (vault, o) =>
      (await import("./commands/chunks-cmd.js")).runChunks((await import("./open.js")).vaultFrom(vault, o.vault), o),
    );

  addAnswerFlags(
    program
      .command("ask")
      .description("Answer a question from your notes with a local LLM, citing the notes it used")
      .argument("<question...>", "your question")
      .option("--context-only", "print the prompt and sources without calling a model (works offline)")
      .option("--obsidian-links", "add obsidian://open links to the sources")
      .addHelpText(
        "after",
        '\nExamples:\n  vault-rag ask "why did the SMARS motors cut out?"\n  vault-rag ask --context-only --tag pico "how do I save power" | pbcopy\n  vault-rag ask --llm openai:gpt-4o-mini --json "what is in the parts drawer?"\n',
      ),
  ).action(async (words: string[], o) => (await import("./commands/ask-cmd.js")).runAsk(words, o));

  addAnswerFlags(
    program
      .command("chat")
      .description("An interactive session: the model and index stay loaded between questions")
      .option("--retrieval-only", "no model: show the hits for each question")
      .addHelpText("after", "\nExamples:\n  vault-rag chat\n  vault-rag chat --retrieval-only --tag robots\n"),
  ).action(async (o) => (await import("./commands/chat-cmd.js")).runChat(o));

  program
    .command("check")
    .description(
      "Verify the index (manifest, orphans, keyword index, stale notes); --repair fixes what needs no embedding",
    )
    .argument("[vault]", "vault folder (the same as --vault)")
    .option("--vault <dir>", "vault folder")
    .option("--db <path>", "index file, or chroma://host:port/<collection>")
    .option("--repair", "fix what can be fixed without re-embedding")
    .option("--json", "print JSON")
    .action(async (vault, o) => {
      const { indexCommand, locate, vaultFrom } = await import("./open.js");
      o.vault = vaultFrom(vault, o.vault);
      const { checkIndex, checkChromaIndex } = await import("../indexing/check.js");
      const { VaultRagError } = await import("../errors.js");
      const { isChromaLocation, storeExists } = await import("../store/index.js");
      const loc = locate(o);
      if (!(await storeExists(loc.db, loc.store)))
        throw new VaultRagError("no_index", `vault-rag: no index at ${loc.shown} — run \`${indexCommand(loc)}\` first`);
      const r = isChromaLocation(loc.db)
        ? await checkChromaIndex(loc.vault, loc.db, { repair: o.repair, store: loc.store })
        : await checkIndex(loc.vault, loc.db, { repair: o.repair });
      if (o.json) process.stdout.write(JSON.stringify(r, null, 2) + "\n");
      else {
        const c = r.counts;
        process.stdout.write(
          `index: ${r.index}\n${c.notes} notes, ${c.chunks} chunks, ${c.vectors} vectors, ${c.ftsRows} keyword rows\n`,
        );
        process.stdout.write(
          r.problems.length ? r.problems.map((p) => `problem: ${p}`).join("\n") + "\n" : "no problems found\n",
        );
        for (const x of r.repaired) process.stdout.write(`repaired: ${x}\n`);
        if (r.stale)
          process.stdout.write(`${r.stale} note(s) changed on disk since indexing — run \`vault-rag index\`\n`);
      }
      if (!r.ok) process.exitCode = 1;
    });

  program
    .command("migrate")
    .description("Copy an index to another backend (file ⇄ Chroma) without re-embedding, verifying counts")
    .requiredOption("--to <db>", "target: an index file or chroma://host:port/<collection>")
    .option("--vault <dir>", "vault folder")
    .option("--db <path>", "source index file, or chroma://host:port/<collection>")
    .option("--json", "print JSON")
    .addHelpText(
      "after",
      "\nExamples:\n  vault-rag migrate --vault ~/notes --to chroma://localhost:8000/notes\n  vault-rag migrate --db chroma://localhost:8000/notes --to ~/notes/.vault-rag/index.db\n",
    )
    .action(async (o) => {
      const { locate } = await import("./open.js");
      const { migrateIndex } = await import("../indexing/migrate.js");
      const { resolveDb } = await import("../config.js");
      const { stderrLogger } = await import("./io.js");
      const loc = locate(o);
      const s = await migrateIndex(loc.db, resolveDb(loc.vault, o.to, {}), {
        store: loc.store,
        log: stderrLogger(false),
      });
      process.stdout.write(
        o.json
          ? JSON.stringify(s, null, 2) + "\n"
          : `migrated ${s.notes} notes, ${s.chunks} chunks from ${s.from} to ${s.to} in ${s.seconds.toFixed(1)} s (counts verified, nothing re-embedded)\n`,
      );
    });

  program
    .command("watch")
    .description("Keep the index fresh as notes change (debounced incremental passes)")
    .argument("[vault]", "vault folder")
    .option("--vault <dir>", "vault folder (the same as the argument)")
    .option("--db <path>", "index file, or chroma://host:port/<collection>")
    .option("--json", "one JSON line per batch")
    .option("--verbose", "more detail")
    .addHelpText("after", "\nExamples:\n  vault-rag watch ~/notes\n")
    .action(async (vault, o) =>
      (await import("./commands/watch-cmd.js")).runWatch((await import("./open.js")).vaultFrom(vault, o.vault), o),
    );

  program
    .command("related")
    .description("List the notes nearest in meaning to a note, each with its best-matching pair of passages")
    .argument("<note>", "a vault-relative path or a note's name, as a wikilink finds it")
    .option("--vault <dir>", "vault folder")
    .option("--db <path>", "index file, or chroma://host:port/<collection>")
    .option("-k, --top-k <n>", "number of notes", int("--top-k", 1), 5)
    .option("--unlinked", "only notes not already linked from or to it (link suggestions)")
    .option("--json", "print JSON")
    .addOption(
      new Option("--color <when>", "colour: auto, always or never")
        .choices(["auto", "always", "never"])
        .default("auto"),
    )
    .addHelpText(
      "after",
      "\nExamples:\n  vault-rag related robots/SMARS.md\n  vault-rag related SMARS --unlinked --json\n",
    )
    .action(async (note: string, o) => (await import("./commands/related-cmd.js")).runRelated(note, o));

  program
    .command("serve")
    .description("Serve a local web app and HTTP API for the vault (search, ask, related notes)")
    .option("--vault <dir>", "vault folder")
    .option("--db <path>", "index file, or chroma://host:port/<collection>")
    .option("--port <n>", "port to listen on (0: any free port)", port, 4321)
    .option("--host <address>", "address to bind; another than loopback requires the printed token", "127.0.0.1")
    .option("--watch", "also keep the index fresh as notes change (and build it if there is none)")
    .option("--llm <spec>", "chat model for ask: ollama:<model> or openai:<model>", DEFAULT_LLM)
    .option("--cors <origin>", "allow this origin (e.g. http://localhost:5173) to call the API from a browser")
    .addHelpText(
      "after",
      "\nExamples:\n  vault-rag serve --vault ~/notes            # then open http://127.0.0.1:4321/\n  vault-rag serve --watch --port 8080\n  vault-rag serve --host 0.0.0.0             # on the network: every request needs the printed token\n" +
        REMOTE_HELP.replace("--model or ", ""),
    )
    .action(async (o) => (await import("./commands/serve-cmd.js")).runServe(o));

  program
    .command("mcp")
    .description("Serve the vault to AI agents over the Model Context Protocol (stdio)")
    .option("--vault <dir>", "vault folder")
    .option("--db <path>", "index file, or chroma://host:port/<collection>")
    .option("--watch", "also keep the index fresh as notes change (reports on stderr)")
    .addHelpText(
      "after",
      '\nTools: search, get_note, related, list_tags, list_folders, status.\n\nExample (Claude Desktop, mcpServers): { "vault-rag": { "command": "vault-rag", "args": ["mcp", "--vault", "/home/me/notes"] } }\n' +
        REMOTE_HELP.replace("--model or ", ""),
    )
    .action(async (o) => {
      const { locate } = await import("./open.js");
      const loc = locate(o);
      if (o.watch)
        await (
          await import("./commands/watch-cmd.js")
        ).startWatch(loc.vault, { db: o.db }, (l) => process.stderr.write(l + "\n"));
      await (
        await import("../mcp/server.js")
      ).serveMcp(loc.vault, {
        db: o.db,
        vaultKnown: (await import("./open.js")).isVaultKnown(o, loc),
        watching: !!o.watch,
      });
    });

  program
    .command("eval")
    .description("Measure retrieval quality per mode: on a BEIR folder, or a known-answer file over a vault")
    .argument("<target>", "a BEIR folder (corpus.jsonl, queries.jsonl, qrels.tsv) or a .jsonl of {question, paths}")
    .option("--vault <dir>", "the vault a known-answer file is about")
    .option("--db <path>", "index file, or chroma://host:port/<collection>")
    .option("--modes <list>", "modes to compare", "keyword,dense,hybrid")
    .option("--sweep", "also try a grid of fusion settings")
    .option("--questions", "also list each question with where each mode ranked its first answer")
    .option("--json", "print JSON")
    .option("--quiet", "no progress output")
    .addHelpText(
      "after",
      "\nExamples:\n  vault-rag eval ../shared/bench/scifact-train\n  vault-rag eval examples/questions.jsonl --vault examples/vault --sweep\n",
    )
    .action(async (target, o) => (await import("./commands/eval-cmd.js")).runEval(target, o));

  return program;
}

let outputClosed = false;

async function main(): Promise<void> {
  // a reader that stops early (`vault-rag search … | head -1`) closes the pipe: stop quietly, as
  // grep does, instead of a stack trace. Later writes are dropped, and a long-running command
  // (index, watch, serve) is told to stop as by Ctrl-C, so it saves its work and frees its lock.
  for (const stream of [process.stdout, process.stderr])
    stream.on("error", (e: NodeJS.ErrnoException) => {
      if (outputClosed) return; // writes after the pipe closed fail too: nobody reads them
      if (e.code !== "EPIPE") throw e;
      outputClosed = true;
      process.emit("SIGINT", "SIGINT");
    });
  const program = buildProgram();
  // search, ask and related answer as grep and ripgrep do: 1 is "found nothing", so any error is 2
  // (a damaged index or a chat model that cannot be reached must not read as "nothing matched" to
  // a script)
  const grepLike = ["search", "ask", "related"].includes(process.argv.slice(2).find((a) => !a.startsWith("-")) ?? "");
  const failed = (code: number) => (process.exitCode = grepLike && code === 1 ? 2 : code);
  try {
    await program.parseAsync(process.argv);
  } catch (e) {
    if (e instanceof CommanderError) {
      process.exitCode = e.exitCode === 0 ? 0 : 2;
      return;
    }
    if (e instanceof VaultRagError) {
      const { withLocatedVault } = await import("./open.js");
      err(withLocatedVault(e.message));
      failed(exitCodeFor(e));
      return;
    }
    const { isCorruption } = await import("../store/index.js");
    if (isCorruption(e)) {
      // damage found by a query rather than when the file was opened: in the index the command located
      const { lastLocated, withLocatedVault } = await import("./open.js");
      const { rebuildCommand } = await import("../store/index.js");
      const db = lastLocated()?.db;
      const file = db && !/^chroma:/i.test(db) ? db : undefined;
      err(
        withLocatedVault(
          `vault-rag: the index${file ? ` at ${file}` : ""} is damaged (${(e as Error).message}) — run \`${file ? rebuildCommand(file) : "vault-rag index --full"}\` to rebuild it from the notes`,
        ),
      );
      failed(1);
      return;
    }
    err(`vault-rag: unexpected error: ${(e as Error).stack ?? e}`);
    failed(1);
  }
}

await main();
