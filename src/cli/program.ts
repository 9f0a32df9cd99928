/**
 * The command-line program. Commands load their modules only when they run, so `vault-rag search`
 * does not pay for the Markdown parser and `--help` pays for nothing. It runs in the process that
 * was started (`main.ts`), or in a resident process for a thin client (`served.ts`).
 */
import { Command, CommanderError, Help, Option } from "commander";
import { exitCodeFor, VaultRagError } from "../errors.js";
import { addAnswerFlags, addSearchFlags, int, port, REMOTE_HELP } from "./flags.js";
import { VERSION } from "../version.js";
import { CHUNK_DEFAULTS, DEFAULT_LLM } from "../core/defaults.js";
import { err } from "./io.js";
import { servedBy, setExitCode, write } from "./context.js";
import type { SearchFlags } from "./flags.js";

/** Commands whose arguments are a query, which may hold words that start with a dash. */
const QUERY_COMMANDS = new Set(["search", "ask"]);

/** The help of `--threads`, on the commands that index. */
const THREADS_HELP =
  "threads the bundled model embeds on (default: $VAULT_RAG_THREADS, else one per core but one, as memory allows; 0: the main thread)";

/** The help of `--ocr`, on the commands that index. */
const OCR_HELP =
  'read scanned PDF pages by OCR with tesseract and pdftoppm (apt-get install tesseract-ocr poppler-utils; or "ocr": true in .vault-rag.json)';

/** The help of `--no-daemon`, on the commands a resident process may answer. */
const NO_DAEMON_HELP =
  "run in this process, even when a serve, mcp, watch or chat process holds the vault (also VAULT_RAG_NO_DAEMON=1)";

/** Runs a reading command, asking the resident process that holds its vault when there is one. */
const resident = async (run: () => Promise<void>) => (await import("./resident.js")).withResident(run);

/** Builds the command-line program for the arguments `args` (the command's name first). */
export function buildProgram(args: string[]): Command {
  const program = new Command();
  program
    .name("vault-rag")
    .description("Local-first search over a folder of Markdown notes.")
    .version(VERSION)
    // a bad flag is one line, as every vault-rag error is: what, and where to read how
    .configureOutput({
      writeOut: (s) => write("out", s),
      writeErr: (s) => {
        if (!s.startsWith("error:")) return write("err", s);
        const message = s
          .slice(7)
          .trim()
          .replace(/\s*\n\s*/g, " ");
        // `search tar -xzvf`: a query word that starts with a dash is read as a flag
        // (unless commander found the flag that was meant: `--tpo-k` is a typo of --top-k)
        const query =
          QUERY_COMMANDS.has(args[0] ?? "") && message.startsWith("unknown option") && !/Did you mean/.test(message);
        return write(
          "err",
          `vault-rag: ${message}${query ? ` — to search for a word that starts with a dash, put the query after the flags and --: vault-rag ${args[0]} [flags] -- ${/'([^']*)'/.exec(message)?.[1] ?? "…"} …` : " (run with --help for usage)"}\n`,
        );
      },
    })
    .exitOverride()
    // the commands that index take --threads (over VAULT_RAG_THREADS): a bad value fails before any work
    .hook("preAction", async (_, cmd) => {
      if (!cmd.options.some((x) => x.long === "--threads")) return;
      const { chooseThreads } = await import("../core/threads.js");
      chooseThreads(cmd.opts().threads as string | undefined);
    });
  // `vault-rag --help` fits one screen: the commands in four groups, one line each (a command's own
  // --help has every flag)
  program.commandsGroup("Everyday:");
  everydayCommands(program);
  propsCommand(program);
  program.commandsGroup("Answers:");
  answerCommands(program);
  program.commandsGroup("Interfaces:");
  interfaceCommands(program);
  program.commandsGroup("Maintenance:");
  maintenanceCommands(program);
  program.configureHelp({ formatHelp: (cmd, helper) => (cmd.parent ? defaultHelp(cmd, helper) : overview(cmd)) });
  return program;
}

const defaultHelp = (cmd: Command, helper: Help) => Help.prototype.formatHelp.call(helper, cmd, helper);

/**
 * `vault-rag --help`: one screen, the commands in their four groups, one line each.
 *
 * @example
 * ```ts
 * overview(buildProgram()).split("\n")[0]; // "vault-rag 0.1.0 — local-first search over a folder of Markdown notes"
 * ```
 */
export function overview(program: Command): string {
  const groups = new Map<string, string[]>();
  const width = 22;
  for (const c of program.commands) {
    const args = c.registeredArguments.map((a) =>
      a.required ? `<${a.name()}${a.variadic ? "..." : ""}>` : `[${a.name()}]`,
    );
    const term = [c.name(), ...args].join(" ");
    const line = `  ${term.padEnd(width)}${c.summary() || c.description()}`;
    groups.set(c.helpGroup(), [...(groups.get(c.helpGroup()) ?? []), line]);
  }
  return [
    `vault-rag ${VERSION} — local-first search over a folder of Markdown notes`,
    "",
    ...[...groups].flatMap(([heading, lines]) => [heading, ...lines]),
    "",
    "Usage: vault-rag <command> [flags]   (vault-rag <command> --help: its flags and examples)",
    "  -V, --version  print the version    -h, --help  this help    reference: docs/cli.md",
    "",
  ].join("\n");
}

let outputClosed = false;

/**
 * Runs vault-rag in this process, on its arguments.
 *
 * @example
 * ```ts
 * await main(); // vault-rag search motors
 * ```
 */
export async function main(): Promise<void> {
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
  await runCommand(process.argv.slice(2));
}

/**
 * Runs one command line (the arguments after `vault-rag`): its output, errors and exit code go to
 * the process it runs for (see `context.ts`). Run for a thin client, an error that is not the
 * command's own (a resident process that failed, {@link Declined}) is thrown to the caller.
 *
 * @example
 * ```ts
 * await runCommand(["search", "--json", "motors"]);
 * ```
 */
export async function runCommand(args: string[]): Promise<void> {
  const program = buildProgram(args);
  // search, ask and related answer as grep and ripgrep do: 1 is "found nothing", so any error is 2
  // (a damaged index or a chat model that cannot be reached must not read as "nothing matched" to
  // a script)
  const grepLike = ["search", "ask", "related"].includes(args.find((a) => !a.startsWith("-")) ?? "");
  const failed = (code: number) => setExitCode(grepLike && code === 1 ? 2 : code);
  try {
    await program.parseAsync(args, { from: "user" });
  } catch (e) {
    if (e instanceof CommanderError) {
      setExitCode(e.exitCode === 0 ? 0 : 2);
      return;
    }
    if (e instanceof VaultRagError) {
      const { cliMessage } = await import("./open.js");
      err(cliMessage(e));
      failed(exitCodeFor(e));
      return;
    }
    if (servedBy()) throw e;
    err(`vault-rag: unexpected error: ${(e as Error).stack ?? e}`);
    failed(1);
  }
}

/** Everyday commands: index, search, tags, folders, props, status, chunks, related. */
function everydayCommands(program: Command): void {
  program
    .command("index")
    .summary("Index a vault (only changed notes are embedded)")
    .description("Index a vault (incremental: only changed notes are re-embedded)")
    .argument("[vault]", "vault folder (see --vault on search)")
    .option("--vault <dir>", "vault folder (the same as the argument)")
    .option("--full", "rebuild the whole index into a new file, swapped in when complete")
    .option(
      "--no-attachments",
      'leave out PDFs, Canvas boards and Word documents (or "attachments": false in .vault-rag.json)',
    )
    .option("--ocr", OCR_HELP)
    .option(
      "--model <id>",
      "embedding model: use-lite (bundled, offline), ollama:<model>, openai:<model>, transformers:<model> (see VAULT_RAG_ALLOW_REMOTE below)",
    )
    .option("--offline", "transformers models: never download (also HF_HUB_OFFLINE=1)")
    .option("--model-dir <dir>", "transformers models: a folder of models copied by hand (or $VAULT_RAG_MODEL_DIR)")
    .option(
      "--db <path>",
      "index file or chroma://host:port/<collection> (default: $VAULT_RAG_DB, else <vault>/.vault-rag/index.db)",
    )
    .option("--threads <n>", THREADS_HELP)
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
      .summary("Search the notes in plain words, with filters")
      .description("Search the index in plain words")
      .argument("<query...>", "what you are looking for")
      .addHelpText(
        "after",
        '\nExamples:\n  vault-rag search "how do the SMARS motors work"\n  vault-rag search --tag pico "how do I save power"\n  vault-rag search --folder kitchen --since 30d bread\n  vault-rag search --where \'{"word_count": {"$gt": 40}}\' --json motors\n',
      ),
  )
    .option("--no-daemon", NO_DAEMON_HELP)
    .action(async (words: string[], o: SearchFlags) =>
      resident(async () => (await import("./commands/search-cmd.js")).runSearch(words, o)),
    );

  for (const what of ["tags", "folders"] as const)
    program
      .command(what)
      .description(
        what === "tags"
          ? "List the tags in the index, with how many notes carry each"
          : "List the folders in the index, with how many notes each holds",
      )
      .summary(what === "tags" ? "Tags, with how many notes carry each" : "Folders, with how many notes each holds")
      .argument("[vault]", "vault folder (the same as --vault)")
      .option("--vault <dir>", "vault folder")
      .option("--db <path>", "index file, or chroma://host:port/<collection>")
      .option("--json", "print JSON")
      .option("--no-daemon", NO_DAEMON_HELP)
      .addHelpText("after", `\nExamples:\n  vault-rag ${what}\n  vault-rag ${what} ~/notes --json\n`)
      .action(async (vault, o) =>
        resident(async () =>
          (await import("./commands/search-cmd.js")).runList(what, {
            ...o,
            vault: (await import("./open.js")).vaultFrom(vault, o.vault),
          }),
        ),
      );

  program
    .command("status")
    .summary("The index: path, model, counts, notes changed since")
    .description("Show the index: path, model, counts, last indexed, notes changed since")
    .argument("[vault]", "vault folder (the same as --vault)")
    .option("--vault <dir>", "vault folder")
    .option("--db <path>", "index file, or chroma://host:port/<collection>")
    .option("--json", "print JSON")
    .option("--verbose", "list every warning indexing kept about files")
    .option("--no-daemon", NO_DAEMON_HELP)
    .addHelpText("after", "\nExamples:\n  vault-rag status\n  vault-rag status --vault ~/notes --json\n")
    .action(async (vault, o) =>
      resident(async () =>
        (await import("./commands/status-cmd.js")).runStatus({
          ...o,
          vault: (await import("./open.js")).vaultFrom(vault, o.vault),
        }),
      ),
    );

  program
    .command("chunks")
    .summary("How notes are cut into passages (no index needed)")
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
  relatedCommand(program);
}

/** `related`: the notes nearest in meaning to a note. */
function relatedCommand(program: Command): void {
  program
    .command("related")
    .summary("Notes nearest in meaning to a note; link suggestions")
    .description("List the notes nearest in meaning to a note, each with its best-matching pair of passages")
    .argument("<note>", "a vault-relative path or a note's name, as a wikilink finds it")
    .option("--vault <dir>", "vault folder")
    .option("--db <path>", "index file, or chroma://host:port/<collection>")
    .option("-k, --top-k <n>", "number of notes", int("--top-k", 1), 5)
    .option("--unlinked", "only notes not already linked from or to it (link suggestions)")
    .option("--json", "print JSON")
    .option("--verbose", "say what the notes were ranked by: meaning, or the words, tags and links they share")
    .addOption(
      new Option("--color <when>", "colour: auto, always or never")
        .choices(["auto", "always", "never"])
        .default("auto"),
    )
    .option("--no-daemon", NO_DAEMON_HELP)
    .addHelpText(
      "after",
      "\nExamples:\n  vault-rag related robots/SMARS.md\n  vault-rag related SMARS --unlinked --json\n",
    )
    .action(async (note: string, o) =>
      resident(async () => (await import("./commands/related-cmd.js")).runRelated(note, o)),
    );
}

/** `props`: the notes' properties, or one property's values. */
function propsCommand(program: Command): void {
  program
    .command("props")
    .summary("Frontmatter properties: names, counts, values")
    .description(
      "List the notes' properties (frontmatter keys) with how many notes hold each and their value types; with a name, that property's values",
    )
    .argument("[name]", "a property: list its values with how many notes hold each")
    .option("--vault <dir>", "vault folder")
    .option("--db <path>", "index file, or chroma://host:port/<collection>")
    .option("--json", "print JSON")
    .option("--no-daemon", NO_DAEMON_HELP)
    .addHelpText(
      "after",
      '\nA property is filtered by its name (--prop status=draft, --where \'{"status": "draft"}\'), or as prop.<name> when a field has that name.\n\nExamples:\n  vault-rag props\n  vault-rag props status --vault ~/notes --json\n',
    )
    .action(async (name: string | undefined, o) =>
      resident(async () =>
        (await import("./commands/props-cmd.js")).runProps(name, {
          ...o,
          vault: (await import("./open.js")).vaultFrom(undefined, o.vault),
        }),
      ),
    );
}

/** Answers from a chat model: ask, chat. */
function answerCommands(program: Command): void {
  addAnswerFlags(
    program
      .command("ask")
      .summary("Answer a question from the notes, citing them")
      .description("Answer a question from your notes with a local LLM, citing the notes it used")
      .argument("<question...>", "your question")
      .option("--context-only", "print the prompt and sources without calling a model (works offline)")
      .option("--obsidian-links", "add obsidian://open links to the sources")
      .option("--no-daemon", NO_DAEMON_HELP)
      .addHelpText(
        "after",
        '\nExamples:\n  vault-rag ask "why did the SMARS motors cut out?"\n  vault-rag ask --context-only --tag pico "how do I save power" | pbcopy\n  vault-rag ask --llm openai:gpt-4o-mini --json "what is in the parts drawer?"\n',
      ),
  ).action(async (words: string[], o) =>
    resident(async () => (await import("./commands/ask-cmd.js")).runAsk(words, o)),
  );

  addAnswerFlags(
    program
      .command("chat")
      .summary("Ask questions in a session that keeps the model loaded")
      .description("An interactive session: the model and index stay loaded between questions")
      .option("--retrieval-only", "no model: show the hits for each question")
      .addHelpText("after", "\nExamples:\n  vault-rag chat\n  vault-rag chat --retrieval-only --tag robots\n"),
  ).action(async (o) => (await import("./commands/chat-cmd.js")).runChat(o));
}

/** Interfaces that stay up: serve, mcp, watch. */
function interfaceCommands(program: Command): void {
  program
    .command("serve")
    .summary("A local web app and HTTP API")
    .description("Serve a local web app and HTTP API for the vault (search, ask, related notes)")
    .option("--vault <dir>", "vault folder")
    .option("--db <path>", "index file, or chroma://host:port/<collection>")
    .option("--port <n>", "port to listen on (0: any free port)", port, 4321)
    .option("--host <address>", "address to bind; another than loopback requires the printed token", "127.0.0.1")
    .option("--watch", "also keep the index fresh as notes change (and build it if there is none)")
    .option("--threads <n>", THREADS_HELP)
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
    .summary("Tools for AI agents over MCP (stdio)")
    .description("Serve the vault to AI agents over the Model Context Protocol (stdio)")
    .option("--vault <dir>", "vault folder")
    .option("--db <path>", "index file, or chroma://host:port/<collection>")
    .option("--watch", "also keep the index fresh as notes change (reports on stderr)")
    .option("--threads <n>", THREADS_HELP)
    .addHelpText(
      "after",
      '\nTools: search, get_note, related, list_tags, list_folders, list_props, status.\n\nExample (Claude Desktop, mcpServers): { "vault-rag": { "command": "vault-rag", "args": ["mcp", "--vault", "/home/me/notes"] } }\n' +
        REMOTE_HELP.replace("--model or ", ""),
    )
    .action(async (o) => {
      const { locate } = await import("./open.js");
      const loc = locate(o);
      // the CLI's reading commands are answered here too, on this vault's endpoint (removed at exit)
      await (await import("./resident.js")).startResident(loc, o);
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
    .command("watch")
    .summary("Keep the index fresh as notes change")
    .description("Keep the index fresh as notes change (debounced incremental passes)")
    .argument("[vault]", "vault folder")
    .option("--vault <dir>", "vault folder (the same as the argument)")
    .option("--db <path>", "index file, or chroma://host:port/<collection>")
    .option("--json", "one JSON line per batch")
    .option("--ocr", OCR_HELP)
    .option("--threads <n>", THREADS_HELP)
    .option("--verbose", "more detail")
    .addHelpText("after", "\nExamples:\n  vault-rag watch ~/notes\n")
    .action(async (vault, o) =>
      (await import("./commands/watch-cmd.js")).runWatch((await import("./open.js")).vaultFrom(vault, o.vault), o),
    );
}

/** Maintenance: models (and models pull), check, migrate, eval. */
function maintenanceCommands(program: Command): void {
  modelsCommand(program);
  program
    .command("check")
    .summary("Verify the index; --repair fixes what it can")
    .description(
      "Verify the index (manifest, orphans, keyword index, stale notes); --repair fixes what needs no embedding",
    )
    .argument("[vault]", "vault folder (the same as --vault)")
    .option("--vault <dir>", "vault folder")
    .option("--db <path>", "index file, or chroma://host:port/<collection>")
    .option("--repair", "fix what can be fixed without re-embedding")
    .option("--json", "print JSON")
    .action(async (vault, o) => {
      const { locate, openCore, reindexCommand, vaultFrom } = await import("./open.js");
      const { cliFix } = await import("../render/fix.js");
      const { printable } = await import("../shared/snippet-text.js");
      o.vault = vaultFrom(vault, o.vault);
      const loc = locate(o);
      const v = await openCore(loc, o);
      const r = await v.check({ repair: o.repair }).finally(() => v.close());
      if (o.json) process.stdout.write(JSON.stringify(r, null, 2) + "\n");
      else {
        const c = r.counts;
        process.stdout.write(
          `index: ${r.index}\n${c.notes} notes${c.attachments ? `, ${c.attachments} attachments` : ""}, ${c.chunks} chunks, ${c.vectors} vectors, ${c.ftsRows} keyword rows\n`,
        );
        process.stdout.write(
          r.problems.length ? r.problems.map((p) => `problem: ${p}`).join("\n") + "\n" : "no problems found\n",
        );
        for (const x of r.repaired) process.stdout.write(`repaired: ${x}\n`);
        if (r.tempFiles.length)
          process.stdout.write(
            `leftover: ${r.tempFiles.length} temporary file(s) a stopped run left beside the index ("${r.tempFiles[0]}") — \`check --repair\` or the next index removes them\n`,
          );
        // kept from the runs that gave them: what indexing left out, not damage
        for (const w of r.warnings)
          process.stdout.write(`warning: ${printable(w.message.replace(/^vault-rag: /, ""))}\n`);
        // pending, not damage: searches rank these passages by keyword until they have vectors
        if (r.chunksWithoutVectors)
          process.stdout.write(
            `pending: ${r.chunksWithoutVectors} passage(s) without vectors yet — \`${reindexCommand(v, o, loc)}\` embeds them\n`,
          );
        if (r.fix) process.stdout.write(`fix: ${cliFix({ ...r.fix, vault: v.vault })}\n`);
        if (r.stale)
          process.stdout.write(
            `${r.stale} note(s) changed on disk since indexing — run \`${reindexCommand(v, o, loc)}\`\n`,
          );
      }
      if (!r.ok) setExitCode(1);
    });

  program
    .command("migrate")
    .summary("Copy an index between a file and Chroma")
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
      const { locate, openCore } = await import("./open.js");
      const { stderrLogger } = await import("./io.js");
      const v = await openCore(locate(o), o, { log: stderrLogger(false) });
      const s = await v.migrate(o.to).finally(() => v.close());
      process.stdout.write(
        o.json
          ? JSON.stringify(s, null, 2) + "\n"
          : `migrated ${s.notes} notes, ${s.chunks} chunks from ${s.from} to ${s.to} in ${s.seconds.toFixed(1)} s (counts verified, nothing re-embedded)\n`,
      );
    });

  program
    .command("eval")
    .summary("Measure retrieval quality on known answers")
    .description("Measure retrieval quality per mode: on a BEIR folder, or a known-answer file over a vault")
    .argument("<target>", "a BEIR folder (corpus.jsonl, queries.jsonl, qrels.tsv) or a .jsonl of {question, paths}")
    .option("--vault <dir>", "the vault a known-answer file is about")
    .option("--db <path>", "index file, or chroma://host:port/<collection>")
    .option("--modes <list>", "modes to compare", "keyword,dense,hybrid")
    .option("--sweep", "also try a grid of fusion settings")
    .option("--questions", "also list each question with where each mode ranked its first answer")
    .option("--rerank <model>", "also measure hybrid reranked by this reranker (see search --rerank)")
    .option("--rerank-depth <list>", "candidates the reranker reorders, comma-separated depths to compare", "50")
    .option("--model-dir <dir>", "transformers rerankers: a folder of models copied by hand")
    .option("--json", "print JSON")
    .option("--quiet", "no progress output")
    .addHelpText(
      "after",
      "\nExamples:\n  vault-rag eval ../shared/bench/scifact-train\n  vault-rag eval examples/questions.jsonl --vault examples/vault --sweep\n  vault-rag eval ../shared/bench/til/questions.jsonl --vault ../shared/bench/til/vault --modes hybrid --rerank transformers:Xenova/ms-marco-MiniLM-L-6-v2 --model-dir ~/models --rerank-depth 20,50,100\n",
    )
    .action(async (target, o) => (await import("./commands/eval-cmd.js")).runEval(target, o));
}

/** `models`: the recommended models with the figures measured here; `models pull`: fetch one. */
function modelsCommand(program: Command): void {
  const models = program
    .command("models")
    .summary("Stronger embedding models, and how to switch")
    .description(
      "List the recommended embedding models: size, figures measured here, published retrieval scores, the model the index uses, and the commands that switch the index to each",
    )
    .option("--vault <dir>", "vault folder to put in the commands (and whose index's model is marked)")
    .option("--json", "print JSON")
    .addHelpText(
      "after",
      "\nExamples:\n  vault-rag models\n  vault-rag models --json\n  vault-rag models pull Xenova/bge-small-en-v1.5\n",
    )
    .action(async (o) => (await import("./commands/models-cmd.js")).runModels(o));
  models
    .command("pull")
    .summary("Download a Transformers.js model from the Hugging Face Hub")
    .description(
      "Download a model's files (config, tokenizer, ONNX weights) from the Hugging Face Hub ($HF_ENDPOINT) into the Transformers.js cache ($TRANSFORMERS_CACHE, else $HF_HOME/transformers), checked by size and checksum; Ctrl-C keeps what was fetched and the same command resumes",
    )
    .argument("<model>", "owner/name on the Hub, e.g. Xenova/bge-small-en-v1.5")
    .option(
      "--dtype <weights>",
      "ONNX weights: q8 (onnx/model_quantized.onnx), fp32 (onnx/model.onnx), fp16, int8, uint8, q4",
      "q8",
    )
    .option("--from <dir>", "install from a folder copied by hand (no network), checking its files")
    .option("--use", "then rebuild the index with it (index --full --model transformers:<model>)")
    .option("--vault <dir>", "the vault --use indexes, and the printed command names")
    .option("--json", "print the result as JSON")
    .option("--quiet", "no progress output")
    .addHelpText(
      "after",
      "\nExamples:\n  vault-rag models pull Xenova/bge-small-en-v1.5\n  vault-rag models pull Xenova/bge-small-en-v1.5 --use --vault ~/notes\n  vault-rag models pull Xenova/bge-small-en-v1.5 --from /media/usb/bge-small-en-v1.5\n",
    )
    // `models` takes --vault and --json too, and reads them wherever they stand: they are the pull's
    .action(async (model: string, o, cmd: Command) =>
      (await import("./commands/pull-cmd.js")).runPull(model, { ...cmd.parent?.opts(), ...o }),
    );
}
