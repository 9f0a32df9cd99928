import { Worker } from "node:worker_threads";

/** Where the scanned parts of a snapshot are, and the memory its int8 rows go to. */
export interface SnapshotParts {
  /** An open descriptor of the snapshot (threads share the process's descriptors). */
  fd: number;
  /** Byte offset of the row ids; the norms follow them. */
  at: number;
  size: number;
  dims: number;
  /** Bytes of the float32 part (row ids, norms, rows): the scales and the int8 rows follow it. */
  floatBytes: number;
  /** The int8 rows' place: shared WebAssembly memory. */
  shared: SharedArrayBuffer;
  offset: number;
}

/** What the thread read: row ids, norms and scales (moved to the caller), and the CRC-32 of the four parts. */
export interface ReadParts {
  rowids: Int32Array;
  norms: Float32Array;
  scales: Float32Array;
  crc: number;
}

/**
 * The thread's code: plain CommonJS over Node's own modules, so that it runs the same from the
 * built files and from the sources under test. It reads the parts in the order `digest` sums them.
 */
const SOURCE = `
const { workerData: w, parentPort } = require("node:worker_threads");
const fs = require("node:fs");
const zlib = require("node:zlib");
const read = (into, position) => {
  for (let got = 0; got < into.length; ) {
    const n = fs.readSync(w.fd, into, got, into.length - got, position + got);
    if (n <= 0) throw new Error("the vector snapshot ended early");
    got += n;
  }
};
try {
  const rowids = new Uint8Array(w.size * 4);
  const norms = new Uint8Array(w.size * 4);
  const scales = new Uint8Array(w.size * 4);
  const bytes = new Uint8Array(w.shared, w.offset, w.size * w.dims);
  read(rowids, w.at);
  read(norms, w.at + w.size * 4);
  read(scales, w.at + w.floatBytes);
  read(bytes, w.at + w.floatBytes + w.size * 4);
  let crc = 0;
  for (const part of [rowids, norms, scales, bytes]) crc = zlib.crc32(part, crc);
  parentPort.postMessage({ rowids: rowids.buffer, norms: norms.buffer, scales: scales.buffer, crc }, [rowids.buffer, norms.buffer, scales.buffer]);
} catch (err) {
  parentPort.postMessage({ error: String((err && err.message) || err) });
}
`;

/**
 * Reads the parts of a dense snapshot a search scans on a thread of its own: the int8 rows straight
 * into the shared memory the scanning kernel reads, the rest into buffers handed over without a
 * copy. A cold process touches 166 MB of fresh memory for them at 100,000 notes (0.6 s here, most
 * of a cold search's own work); on a second core the main thread meanwhile opens the index and
 * runs the keyword query. Resolves `undefined` when no thread could start or read the file (the
 * caller reads it on its own thread); the thread does not keep the process alive.
 *
 * @example
 * ```ts
 * const parts = await readPartsOffThread({ fd, at, size, dims, floatBytes, shared, offset });
 * ```
 */
export function readPartsOffThread(parts: SnapshotParts): Promise<ReadParts | undefined> {
  return new Promise((resolve) => {
    let worker: Worker;
    try {
      worker = new Worker(SOURCE, { eval: true, workerData: parts });
    } catch {
      return resolve(undefined);
    }
    worker.unref();
    const done = (got: ReadParts | undefined) => {
      resolve(got);
      void worker.terminate();
    };
    worker.once("message", (m: { rowids?: ArrayBuffer; norms?: ArrayBuffer; scales?: ArrayBuffer; crc?: number }) =>
      done(
        m.rowids && m.norms && m.scales && m.crc !== undefined
          ? {
              rowids: new Int32Array(m.rowids),
              norms: new Float32Array(m.norms),
              scales: new Float32Array(m.scales),
              crc: m.crc,
            }
          : undefined,
      ),
    );
    worker.once("error", () => done(undefined));
    worker.once("exit", () => done(undefined)); // (after a message, resolving again does nothing)
  });
}
