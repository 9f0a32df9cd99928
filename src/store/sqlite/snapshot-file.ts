import crypto from "node:crypto";
import fs from "node:fs";
import zlib from "node:zlib";

/**
 * The dense snapshot file's format, as DenseIndex writes and reads it: a JSON header line (the
 * index's key, its shape, and a checksum of its parts), then row ids, norms, the int8 rows' scales
 * and the int8 rows. Only an index with an int8 copy has one; the float32 rows are the store's.
 */

/** zlib's CRC-32 (Node 20.15 and later): 30 ms for a 166 MB int8 copy here, where sha1 takes 139 ms. */
export const crc32 = (zlib as { crc32?: (data: Uint8Array, value?: number) => number }).crc32;

/**
 * A checksum of typed arrays' bytes, named by its algorithm (`crc32:…`, or `sha1:…` on a Node
 * without zlib's CRC-32): a snapshot's header keeps one per part, which catches a snapshot damaged
 * in place. A snapshot summed by the other algorithm is rewritten.
 */
export function digest(parts: ArrayBufferView[]): string {
  const bytes = (a: ArrayBufferView) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  if (crc32) {
    let sum = 0;
    for (const a of parts) sum = crc32(bytes(a), sum);
    return crcDigest(sum);
  }
  const h = crypto.createHash("sha1");
  for (const a of parts) h.update(bytes(a));
  return `sha1:${h.digest("hex")}`;
}

/** A CRC-32 as {@link digest} names it. */
export const crcDigest = (sum: number) => `crc32:${sum.toString(16)}`;

/** Reads exactly `into.length` bytes at `position`, or throws. */
export function readFully(fd: number, into: Uint8Array, position: number): void {
  for (let got = 0; got < into.length;) {
    const n = fs.readSync(fd, into, got, into.length - got, position + got);
    if (n <= 0) throw new Error("vault-rag: the vector snapshot ended early");
    got += n;
  }
}

/** A snapshot file open for reading, with its checked header. */
export interface OpenSnapshot {
  fd: number;
  header: NonNullable<ReturnType<typeof snapshotHeader>>;
}

/**
 * A snapshot opened as a regular file (a FIFO planted at its name must not hang the search), with
 * its header checked ({@link snapshotHeader}); `undefined` when it is missing, another index's or
 * torn. The caller closes `fd`.
 */
export function openSnapshot(file: string, key: string): OpenSnapshot | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    if (fs.fstatSync(fd).isFile()) {
      const head = Buffer.alloc(4096);
      const n = fs.readSync(fd, head, 0, head.length, 0);
      const header = snapshotHeader(head.subarray(0, n), fs.fstatSync(fd).size, key);
      if (header) return { fd, header };
    }
  } catch {
    // unreadable: as if missing
  }
  fs.closeSync(fd);
  return undefined;
}

/**
 * The header line of a snapshot, checked: the key matches and the file's length is exactly what
 * the header announces (a torn or foreign snapshot is `undefined`). `floatBytes`: the bytes of the
 * row ids and norms, which the scales follow.
 */
export function snapshotHeader(
  start: Buffer,
  length: number,
  key: string,
): { dims: number; size: number; floatBytes: number; body: number; sum: string } | undefined {
  const nl = start.indexOf(10);
  if (nl < 0 || (nl + 1) % 4 !== 0) return undefined;
  let header: { key: string; dims: number; size: number; int8?: boolean; sum?: string; rows?: string };
  try {
    header = JSON.parse(start.subarray(0, nl).toString("utf8"));
  } catch {
    return undefined;
  }
  const { dims, size } = header;
  if (!Number.isSafeInteger(dims) || !Number.isSafeInteger(size) || dims <= 0 || size < 0) return undefined;
  const floatBytes = size * 8;
  // a snapshot from before checksums, or one holding float rows (an earlier build's), is rewritten
  if (header.key !== key || !header.int8 || header.rows || !header.sum) return undefined;
  if (length !== nl + 1 + floatBytes + size * 4 + size * dims) return undefined;
  return { dims, size, floatBytes, body: nl + 1, sum: header.sum };
}
