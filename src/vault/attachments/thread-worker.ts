/**
 * Worker thread for src/vault/attachments/thread.ts: reads one attachment at a time with
 * `readAttachment` and sends back what it read, or the error that kept the file from being opened
 * (its code and message: an error's own fields do not cross threads).
 */
import { parentPort } from "node:worker_threads";
import type { VaultFile } from "../types.js";
import { readAttachment, type AttachmentOptions } from "./read.js";

parentPort!.on("message", async ({ id, file, opts }: { id: number; file: VaultFile; opts: AttachmentOptions }) => {
  try {
    const r = await readAttachment(file, opts);
    if ("error" in r) parentPort!.postMessage({ id, error: { code: r.error.code, message: r.error.message } });
    else parentPort!.postMessage({ id, read: r });
  } catch (err) {
    parentPort!.postMessage({ id, error: { message: String((err as Error)?.message ?? err) } });
  }
});
