import fs from "node:fs";
import path from "node:path";

/** The real path of each folder a read was asked to stay within, resolved once per process. */
const realRoots = new Map<string, string>();

/** Why {@link readRegularFile} would not read a file: not a regular file, too big, or outside its folder. */
export interface Refusal {
  refused: string;
}

/**
 * Reads a file through one descriptor, so that what is checked is what is read: never blocks on a
 * FIFO or a device (a note swapped for a FIFO after the walk hung `index` for good), refuses what is
 * not a regular file, refuses one over `maxBytes` before reading it (a 1.9 GB note took 2 GB of
 * memory to be found too big), and, with `within`, one that lies outside that folder (a note swapped
 * for a symlink to `~/.ssh/…` after the walk was indexed). Errors of `open` (ENOENT, EACCES) are thrown.
 *
 * @example
 * ```ts
 * const r = readRegularFile("/home/me/notes/a.md", { maxBytes: 32 << 20, within: "/home/me/notes" });
 * if ("refused" in r) console.warn(r.refused); else use(r.toString("utf8"));
 * ```
 */
export function readRegularFile(
  file: string,
  opts: { maxBytes?: number; within?: string; stat?: { mtimeMs: number; size: number } } = {},
): Buffer | Refusal {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  try {
    const st = fs.fstatSync(fd);
    // the caller's record of what it read: this descriptor's time and size, not a listing's from before
    if (opts.stat) [opts.stat.mtimeMs, opts.stat.size] = [st.mtimeMs, st.size];
    if (!st.isFile()) return { refused: "it is not a regular file (a FIFO, device or folder)" };
    if (opts.maxBytes !== undefined && st.size > opts.maxBytes)
      return { refused: `${st.size} bytes is over the ${opts.maxBytes}-byte limit` };
    if (opts.within !== undefined && !isWithin(openedPath(fd, file), realRoot(opts.within)))
      return { refused: "it is a link that points outside the vault" };
    const buf = Buffer.allocUnsafe(st.size);
    let at = 0;
    for (let n = 1; at < st.size && n > 0; at += n) n = fs.readSync(fd, buf, at, st.size - at, at);
    return at === st.size ? buf : buf.subarray(0, at);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Opens a file this process writes (a lock, a cache) without following a symbolic link at its
 * name, and refuses anything but a regular file there: a link planted in a shared vault's
 * `.vault-rag/` would otherwise have the file it points to truncated and overwritten. Throws an
 * error whose `code` is `ELOOP` for a link, `ENOTREG` for another kind of file.
 *
 * @example
 * ```ts
 * const fd = openOwnFile("/home/me/notes/.vault-rag/index.db.lock", fs.constants.O_RDWR | fs.constants.O_CREAT);
 * ```
 */
export function openOwnFile(file: string, flags: number, mode = 0o644): number {
  const fd = fs.openSync(file, flags | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK, mode);
  if (!fs.fstatSync(fd).isFile()) {
    fs.closeSync(fd);
    throw Object.assign(new Error(`${file} is not a regular file`), { code: "ENOTREG" });
  }
  return fd;
}

/**
 * Writes a new file that no other file may stand in for: created here (`O_EXCL`, so an existing
 * file or a planted symbolic link makes it fail with EEXIST) and never read through a link. `data`
 * may be a list of parts, written in turn.
 *
 * @example
 * ```ts
 * writeNewFile(`${snapshot}.${process.pid}.${randomUUID()}.tmp`, bytes);
 * ```
 */
export function writeNewFile(file: string, data: Uint8Array | Uint8Array[]): void {
  const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = fs.constants;
  const fd = fs.openSync(file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o644);
  try {
    // parts are written one after another, never joined into one more copy
    for (const part of Array.isArray(data) ? data : [data])
      for (let at = 0; at < part.byteLength;) at += fs.writeSync(fd, part, at);
  } finally {
    fs.closeSync(fd);
  }
}

/** Where an open descriptor's file really is (Linux names it in /proc), else the name's real path. */
function openedPath(fd: number, file: string): string {
  try {
    return fs.readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return fs.realpathSync(file);
  }
}

function realRoot(dir: string): string {
  let real = realRoots.get(dir);
  if (real === undefined) realRoots.set(dir, (real = fs.realpathSync(dir)));
  return real;
}

const isWithin = (file: string, root: string) =>
  file === root || file.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
