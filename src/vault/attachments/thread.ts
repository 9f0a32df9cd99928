import { Worker } from "node:worker_threads";
import { workerUrl } from "../../worker-url.js";
import type { VaultFile } from "../types.js";
import {
  ATTACHMENT_MEMORY_MB,
  ATTACHMENT_SECONDS,
  OCR_PAGE_SECONDS,
  readAttachment,
  type AttachmentOptions,
  type AttachmentRead,
} from "./read.js";
import type { Unreadable } from "./types.js";

/** The reading thread, started at the first attachment, and the memory limit it was started with. */
let current: { worker: Worker; memoryMb: number; online: boolean } | undefined;
/** Attachments are read one at a time: each file's time limit is its own. */
let queue: Promise<unknown> = Promise.resolve();
let nextId = 0;
/** A thread exited before it ran (this Node cannot start one here): files are read on this thread. */
let noThreads = false;

/** What the thread sends: how many pages OCR is about to read, what it read, or why a file could not be opened. */
interface Reply {
  id: number;
  ocr?: number;
  read?: AttachmentRead;
  error?: { code?: string; message: string };
}

/**
 * {@link readAttachment} on a thread of its own, so that a 300-page PDF does not hold the event
 * loop (`watch` goes on seeing changes, `index` its progress and Ctrl-C), under a time limit
 * (`seconds`, {@link ATTACHMENT_SECONDS} by default, plus {@link OCR_PAGE_SECONDS} a page read by
 * OCR) and a memory limit (`memoryMb` of JavaScript heap, {@link ATTACHMENT_MEMORY_MB} by default).
 * A file over either limit stops its thread (the next file gets a new one) and is `unreadable`
 * with reason `timeout` or `memory`; a thread that stops otherwise makes it `damaged`. Files are
 * read one at a time, in the order asked. The thread, and through it pdf.js and mammoth, is loaded
 * at the first attachment; idle, it does not keep the process alive. Where no thread can start,
 * the file is read on this one.
 *
 * @example
 * ```ts
 * const r = await readAttachmentOffThread(walkVault(root).find((f) => f.path === "big.pdf")!);
 * if ("unreadable" in r) r.unreadable; // { reason: "timeout", detail: "60 s" }
 * ```
 */
export function readAttachmentOffThread(file: VaultFile, opts: AttachmentOptions = {}): Promise<AttachmentRead> {
  const job = queue.then(() => readOne(file, opts));
  queue = job.catch(() => undefined);
  return job;
}

/** The thread, started with this memory limit when there is none with it. */
function thread(memoryMb: number): NonNullable<typeof current> {
  if (current?.memoryMb === memoryMb) return current;
  void current?.worker.terminate();
  const worker = new Worker(workerUrl(import.meta.url, "thread-worker"), {
    resourceLimits: { maxOldGenerationSizeMb: memoryMb },
    // the process's flags (a loader hook's --import too), less those a thread refuses
    execArgv: process.execArgv.filter((a) => !a.startsWith("--input-type")),
  });
  const started = { worker, memoryMb, online: false };
  worker.on("online", () => (started.online = true));
  worker.on("error", () => {}); // the job it held learns of it at its exit
  worker.on("exit", () => {
    if (current === started) current = undefined;
  });
  worker.unref();
  current = started;
  return started;
}

/** Stops a thread that is over a limit: the next file gets a new one. */
function stop(t: NonNullable<typeof current>): void {
  if (current === t) current = undefined;
  void t.worker.terminate();
}

/** Reads one file on the thread, within its limits. */
function readOne(file: VaultFile, opts: AttachmentOptions): Promise<AttachmentRead> {
  const { onOcr, ...sent } = opts;
  const seconds = opts.seconds ?? ATTACHMENT_SECONDS;
  const memoryMb = opts.memoryMb ?? ATTACHMENT_MEMORY_MB;
  let t: NonNullable<typeof current>;
  try {
    if (noThreads) throw new Error("no threads");
    t = thread(memoryMb);
  } catch {
    return readAttachment(file, opts);
  }
  const { worker } = t;
  const id = nextId++;
  const stat = { mtime: Math.floor(file.mtime), size: file.size };
  const unreadable = (u: Unreadable): AttachmentRead => ({ unreadable: u, stat, hash: `size:${file.size}` });
  return new Promise<AttachmentRead>((resolve) => {
    const began = performance.now();
    let limitMs = seconds * 1000;
    let failure: (Error & { code?: string }) | undefined;
    let timer: NodeJS.Timeout | undefined;
    const end = (r: AttachmentRead | Promise<AttachmentRead>) => {
      clearTimeout(timer);
      worker.off("message", onMessage);
      worker.off("error", onError);
      worker.off("exit", onExit);
      worker.unref();
      resolve(r);
    };
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(
        () => {
          stop(t);
          end(unreadable({ reason: "timeout", detail: `${Math.round(limitMs) / 1000} s` }));
        },
        Math.max(0, began + limitMs - performance.now()),
      );
    };
    const onMessage = (m: Reply) => {
      if (m.id !== id) return;
      if (m.ocr !== undefined) {
        limitMs += m.ocr * OCR_PAGE_SECONDS * 1000;
        arm();
        return onOcr?.(m.ocr);
      }
      if (m.error) return end({ error: Object.assign(new Error(m.error.message), { code: m.error.code }) });
      end(m.read!);
    };
    const onError = (err: Error) => (failure = err);
    const onExit = () => {
      // a thread that never started (no worker can run here): this one reads it, and the next
      if (!t.online) {
        noThreads = true;
        return end(readAttachment(file, opts));
      }
      if (failure?.code === "ERR_WORKER_OUT_OF_MEMORY")
        return end(unreadable({ reason: "memory", detail: `${memoryMb} MB` }));
      end(unreadable({ reason: "damaged", detail: `its reader stopped: ${failure?.message ?? "it exited"}` }));
    };
    worker.on("message", onMessage);
    worker.on("error", onError);
    worker.on("exit", onExit);
    worker.ref(); // a caller awaits it: the process must not end first
    arm();
    worker.postMessage({ id, file, opts: sent });
  });
}
