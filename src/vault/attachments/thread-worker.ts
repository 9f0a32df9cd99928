/**
 * Worker thread for src/vault/attachments/thread.ts: reads one attachment at a time with
 * `readAttachment` and sends back what it read, or the error that kept the file from being opened
 * (its code and message: an error's own fields do not cross threads). Before OCR it says how many
 * pages OCR reads, for the time limit.
 */
import { parentPort } from "node:worker_threads";
import type { VaultFile } from "../types.js";
import { readAttachment, type AttachmentOptions } from "./read.js";

parentPort!.on(
  "message",
  async ({ id, file, opts }: { id: number; file: VaultFile; opts: Omit<AttachmentOptions, "onOcr"> }) => {
    try {
      const r = await readAttachment(file, { ...opts, onOcr: (pages) => parentPort!.postMessage({ id, ocr: pages }) });
      if ("error" in r) parentPort!.postMessage({ id, error: { code: r.error.code, message: r.error.message } });
      else parentPort!.postMessage({ id, read: r });
    } catch (err) {
      parentPort!.postMessage({ id, error: { message: String((err as Error)?.message ?? err) } });
    }
  },
);
