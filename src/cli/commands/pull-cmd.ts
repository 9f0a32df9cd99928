import cliProgress from "cli-progress";
import { VaultRagError } from "../../errors.js";
import {
  checkRepo,
  installFromFolder,
  parseDtype,
  pullModel,
  type PullEvent,
  type PullSummary,
} from "../../core/pull.js";
import { err, out } from "../io.js";
import { switchCommand } from "./models-cmd.js";

/** The flags of `vault-rag models pull`. */
export interface PullFlags {
  dtype?: string;
  from?: string;
  use?: boolean;
  vault?: string;
  json?: boolean;
  quiet?: boolean;
}

/**
 * Bytes in the units a download shows: MB, or kB below a tenth of one.
 *
 * @example
 * ```ts
 * megabytes(34014426); // "34.0 MB"
 * megabytes(711661); // "0.7 MB"
 * megabytes(2450); // "2.5 kB"
 * ```
 */
export const megabytes = (bytes: number): string =>
  bytes < 1e5 ? `${(bytes / 1e3).toFixed(1)} kB` : `${(bytes / 1e6).toFixed(1)} MB`;

/** The download's progress on stderr: a bar on a terminal, a line per file (and every 5 s) elsewhere. */
function pullProgress(stream: NodeJS.WriteStream, enabled: boolean) {
  if (!enabled) return { on() {}, stop() {} };
  let total = 0;
  let before = 0; // bytes of the files finished, and of the current one when it started
  let current = "";
  if (stream.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        stream,
        format: "pulling |{bar}| {percentage}% {done} of {all} · {file}",
        hideCursor: true,
        clearOnComplete: true,
      },
      cliProgress.Presets.shades_classic,
    );
    let started = false;
    const payload = (value: number) => ({ done: megabytes(value), all: megabytes(total), file: current });
    return {
      on(e: PullEvent) {
        if (e.kind === "listed") {
          total = e.bytes;
          bar.start(Math.max(1, total), 0, payload(0));
          started = true;
        } else if (e.kind === "file") {
          current = e.path;
          bar.update(before + e.from, payload(before + e.from));
        } else if (e.kind === "progress") bar.update(before + e.done, payload(before + e.done));
        else if (e.kind === "done") {
          before += e.size;
          bar.update(before, payload(before));
        }
      },
      stop() {
        if (started) bar.stop();
        started = false;
      },
    };
  }
  let last = Date.now();
  return {
    on(e: PullEvent) {
      if (e.kind === "listed") total = e.bytes;
      else if (e.kind === "file" && e.from < e.size)
        stream.write(`pulling ${e.path} (${megabytes(e.size)}${e.from ? `, resuming at ${megabytes(e.from)}` : ""})\n`);
      else if (e.kind === "progress" && Date.now() - last > 5000) {
        last = Date.now();
        stream.write(`pulling ${e.path}: ${megabytes(e.done)} of ${megabytes(e.size)}\n`);
      } else if (e.kind === "done") before += e.size;
    },
    stop() {
      if (total) stream.write(`pulled ${megabytes(before)} of ${megabytes(total)}\n`);
      total = 0; // once
    },
  };
}

/**
 * `vault-rag models pull <owner>/<name>`: the model's files from the Hugging Face Hub (`HF_ENDPOINT`)
 * or from a folder copied by hand (`--from`) into the Transformers.js cache, then the command that
 * switches the index to it, or (`--use`) that switch run at once. Ctrl-C keeps what was fetched;
 * the same command resumes it.
 *
 * @example
 * ```ts
 * await runPull("Xenova/bge-small-en-v1.5", { dtype: "fp32" });
 * ```
 */
export async function runPull(name: string, o: PullFlags): Promise<void> {
  const repo = checkRepo(name);
  const dtype = parseDtype(o.dtype);
  const spec = `transformers:${repo}`;
  let summary: PullSummary | ReturnType<typeof installFromFolder>;
  if (o.from) summary = installFromFolder(repo, o.from, { dtype });
  else {
    const stop = new AbortController();
    const onInterrupt = () => stop.abort();
    process.on("SIGINT", onInterrupt);
    process.on("SIGTERM", onInterrupt);
    const bar = pullProgress(process.stderr, !o.quiet && !o.json);
    try {
      summary = await pullModel(repo, { dtype, signal: stop.signal, onEvent: (e) => bar.on(e) });
    } catch (e) {
      if (e instanceof VaultRagError && e.code === "stopped") {
        bar.stop();
        err(`vault-rag: ${e.what}`);
        process.exitCode = 130;
        return;
      }
      throw e;
    } finally {
      bar.stop();
      process.off("SIGINT", onInterrupt);
      process.off("SIGTERM", onInterrupt);
    }
  }
  const command = switchCommand(spec, o.vault);
  // with --use, --json is the index run's summary (one JSON document on stdout)
  if (o.json) {
    if (!o.use) out(JSON.stringify({ ...summary, spec, switch: command }, null, 2));
  } else {
    const fetched = "downloaded" in summary ? `${megabytes(summary.downloaded)} downloaded` : `copied from ${o.from}`;
    out(`pulled ${repo} (${dtype} weights) into ${summary.dir} — ${summary.files.length} files, ${fetched}`);
    if (!o.use) out(`switch: ${command}`);
  }
  if (o.use) {
    const { vaultFrom } = await import("../open.js");
    const { runIndex } = await import("./index-cmd.js");
    // the files are in the cache now: the index reads them from there, and never from the network
    await runIndex(vaultFrom(undefined, o.vault), {
      full: true,
      model: spec,
      offline: true,
      quiet: o.quiet,
      json: o.json,
    });
  }
}
