/**
 * Downloads a model's files from the Hugging Face Hub into the Transformers.js cache
 * (`vault-rag models pull`). The Hub's model API lists the files of one commit with their size and
 * checksum (`GET {endpoint}/api/models/{repo}/revision/{revision}?blobs=true`); each file comes from
 * `{endpoint}/{repo}/resolve/{commit}/{file}` into `<file>.part`, resumed with an HTTP Range request
 * when a part is left, checked (size, then sha256 for a large file, the git blob hash for a small
 * one) and renamed into place. The download is the user's consent: no `VAULT_RAG_ALLOW_REMOTE`.
 */
import { createHash, type Hash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { VaultRagError } from "../errors.js";
import { VERSION } from "../version.js";
import {
  checkRepo,
  DEFAULT_DTYPE,
  diskError,
  modelCacheFolder,
  OPTIONAL_FILES,
  REQUIRED_FILES,
  transformersCacheDir,
  weightsFile,
  withDtype,
  writeAtomically,
  WEIGHTS_SUFFIX,
  type Dtype,
} from "./hub-cache.js";

/** The Hub's address unless `HF_ENDPOINT` names another (a mirror, or a stand-in in tests). */
export const DEFAULT_HF_ENDPOINT = "https://huggingface.co";

/** One file of a model repository, as the Hub lists it. */
export interface HubFile {
  /** Its path in the repository (`onnx/model_quantized.onnx`). */
  path: string;
  size: number;
  /** sha256 of the content, for a file stored with Git LFS. */
  sha256?: string;
  /** The git blob hash (sha1 of `blob <size>\0<content>`), for a file stored in git. */
  blobId?: string;
}

/** A repository's files at one commit. */
export interface HubListing {
  /** The commit the files are fetched from (the revision asked for when the Hub names none). */
  commit: string;
  files: HubFile[];
}

/** What a pull reports as it goes. */
export type PullEvent =
  | { kind: "listed"; files: HubFile[]; bytes: number }
  /** A file starts; `from` bytes were already there (a part left by a stopped pull, or the whole file). */
  | { kind: "file"; path: string; size: number; from: number }
  | { kind: "progress"; path: string; done: number; size: number }
  | { kind: "done"; path: string; size: number; reused: boolean };

/** Options of {@link pullModel}. */
export interface PullOptions {
  /** The Hub's address (else `HF_ENDPOINT`, else {@link DEFAULT_HF_ENDPOINT}). */
  endpoint?: string;
  /** Branch, tag or commit (default `main`, the revision Transformers.js reads from its cache). */
  revision?: string;
  dtype?: Dtype;
  /** The Transformers.js cache (else {@link transformersCacheDir}). */
  cacheDir?: string;
  /** Stops the download between two reads; what was written stays in the `.part` file. */
  signal?: AbortSignal;
  onEvent?: (e: PullEvent) => void;
}

/** What a pull did. */
export interface PullSummary {
  /** `owner/name`. */
  model: string;
  /** The `--model` value that uses it. */
  spec: string;
  dtype: Dtype;
  /** The model's folder in the cache. */
  dir: string;
  commit: string;
  files: { path: string; bytes: number; reused: boolean; resumedFrom: number }[];
  /** Bytes fetched over the network by this run. */
  downloaded: number;
}

const endpointOf = (o: PullOptions) =>
  (o.endpoint ?? process.env.HF_ENDPOINT ?? DEFAULT_HF_ENDPOINT).replace(/\/+$/, "");

const headersOf = (extra: Record<string, string> = {}): Record<string, string> => ({
  "user-agent": `vault-rag/${VERSION}`,
  ...(process.env.HF_TOKEN ? { authorization: `Bearer ${process.env.HF_TOKEN}` } : {}),
  ...extra,
});

/** A request to the Hub; a connection that fails is the one-line "cannot reach" error. */
async function hubFetch(url: string, endpoint: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (err) {
    if ((err as Error).name === "AbortError") throw stopped();
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new VaultRagError(
      "download_failed",
      `cannot reach the Hugging Face Hub at ${endpoint} (${cause?.code ?? cause?.message ?? (err as Error).message}) — check the network (offline?), set HF_ENDPOINT to a mirror, or install a copied folder with --from`,
      { cause: err },
    );
  }
}

const stopped = () =>
  new VaultRagError("stopped", "the download was stopped — what was fetched is kept; the same command resumes it");

/** The error for a reply that is not the file or listing asked for. */
function statusError(res: Response, repo: string, endpoint: string, what: string): VaultRagError {
  if (res.status === 404)
    return new VaultRagError(
      "not_found",
      `model "${repo}" was not found on the Hugging Face Hub at ${endpoint} (${what}: 404) — check the name (owner/name, e.g. Xenova/bge-small-en-v1.5)`,
    );
  if (res.status === 401 || res.status === 403)
    return new VaultRagError(
      "download_failed",
      `model "${repo}" is private or gated on the Hugging Face Hub (${res.status}) — accept its terms on its page and set HF_TOKEN`,
    );
  return new VaultRagError(
    "download_failed",
    `the Hugging Face Hub at ${endpoint} answered ${res.status} ${res.statusText} for ${what} — try again later`,
  );
}

/**
 * The files of a model repository at a revision, with sizes and checksums, from the Hub's model API.
 *
 * @example
 * ```ts
 * (await listModelFiles("Xenova/bge-small-en-v1.5")).files.find((f) => f.path === "onnx/model_quantized.onnx")?.size; // 34014426
 * ```
 */
export async function listModelFiles(repo: string, opts: PullOptions = {}): Promise<HubListing> {
  const endpoint = endpointOf(opts);
  const revision = opts.revision ?? "main";
  const url = `${endpoint}/api/models/${repo}/revision/${encodeURIComponent(revision)}?blobs=true`;
  const res = await hubFetch(url, endpoint, { headers: headersOf(), signal: opts.signal });
  if (!res.ok) throw statusError(res, repo, endpoint, "its file list");
  let body: {
    sha?: string;
    siblings?: { rfilename?: string; size?: number; blobId?: string; lfs?: { sha256?: string } }[];
  };
  try {
    body = (await res.json()) as typeof body;
  } catch (err) {
    throw new VaultRagError("download_failed", `the Hub at ${endpoint} sent a file list that is no JSON (${url})`, {
      cause: err,
    });
  }
  if (!Array.isArray(body.siblings))
    throw new VaultRagError("download_failed", `the Hub at ${endpoint} sent no file list for "${repo}" (${url})`);
  const files = body.siblings
    .filter((s) => typeof s.rfilename === "string" && typeof s.size === "number")
    .map((s) => ({
      path: s.rfilename!,
      size: s.size!,
      ...(s.lfs?.sha256 ? { sha256: s.lfs.sha256 } : s.blobId ? { blobId: s.blobId } : {}),
    }));
  return { commit: body.sha ?? revision, files };
}

/**
 * The files to fetch for a weights variant: config, tokenizer, the weights (with their external data
 * files, when the weights are split), and the optional files the repository has. A missing file
 * is an error that names the variants the repository does have.
 *
 * @example
 * ```ts
 * chooseFiles("Xenova/bge-small-en-v1.5", listing.files, "q8").map((f) => f.path);
 * // ["config.json", "tokenizer.json", "tokenizer_config.json", "onnx/model_quantized.onnx", "special_tokens_map.json"]
 * ```
 */
export function chooseFiles(repo: string, files: HubFile[], dtype: Dtype): HubFile[] {
  const byPath = new Map(files.map((f) => [f.path, f]));
  const weights = weightsFile(dtype);
  const missing = [...REQUIRED_FILES, weights].filter((f) => !byPath.has(f));
  if (missing.length) {
    const variants = (Object.keys(WEIGHTS_SUFFIX) as Dtype[]).filter((d) => byPath.has(weightsFile(d)));
    const instead = missing.includes(weights)
      ? variants.length
        ? ` — it has ${variants.map((d) => `${weightsFile(d)} (--dtype ${d})`).join(", ")}`
        : " — it has no ONNX weights Transformers.js reads (onnx/model*.onnx)"
      : " — it is no Transformers.js model";
    throw new VaultRagError("not_found", `model "${repo}" on the Hub has no ${missing.join(", ")}${instead}`);
  }
  const data = files.filter((f) => f.path.startsWith(`${weights}_data`));
  return [
    ...[...REQUIRED_FILES, weights].map((f) => byPath.get(f)!),
    ...data,
    ...OPTIONAL_FILES.flatMap((f) => byPath.get(f) ?? []),
  ];
}

/** A new hash of the kind that checks `file`, or none when the Hub gave no checksum. */
function checksum(file: HubFile): Hash | undefined {
  if (file.sha256) return createHash("sha256");
  if (!file.blobId) return undefined;
  return createHash("sha1").update(`blob ${file.size}\0`);
}

const digestOf = (file: HubFile) => file.sha256 ?? file.blobId;

/** Feeds the first `bytes` of `file` into `hash`. */
function hashFile(hash: Hash | undefined, file: string, bytes: number): void {
  if (!hash || !bytes) return;
  const fd = fs.openSync(file, "r");
  try {
    const buf = Buffer.allocUnsafe(1 << 20);
    for (let at = 0; at < bytes;) {
      const n = fs.readSync(fd, buf, 0, Math.min(buf.length, bytes - at), at);
      if (!n) break;
      hash.update(buf.subarray(0, n));
      at += n;
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** Whether the file at `dest` is the one listed (size, and checksum when the Hub gave one). */
function alreadyThere(file: HubFile, dest: string): boolean {
  const size = fs.statSync(dest, { throwIfNoEntry: false })?.size;
  if (size !== file.size) return false;
  const hash = checksum(file);
  hashFile(hash, dest, size);
  return !hash || hash.digest("hex") === digestOf(file);
}

/**
 * Fetches one file into `<dest>.part` from where a stopped pull left it (a Range request; a server
 * that answers with the whole file starts it again), checks it, and renames it to `dest`.
 * Returns the bytes that were already there.
 */
async function fetchFile(url: string, file: HubFile, dest: string, repo: string, o: PullOptions): Promise<number> {
  const endpoint = endpointOf(o);
  const part = `${dest}.part`;
  let from = fs.statSync(part, { throwIfNoEntry: false })?.size ?? 0;
  if (from > file.size) from = 0;
  let hash = checksum(file);
  hashFile(hash, part, from);
  o.onEvent?.({ kind: "file", path: file.path, size: file.size, from });
  let fd: number | undefined;
  try {
    fs.mkdirSync(path.dirname(dest), { recursive: true });
    fd = fs.openSync(part, from ? "r+" : "w");
    if (from < file.size || file.size === 0) {
      const res = await hubFetch(url, endpoint, {
        headers: headersOf(from ? { range: `bytes=${from}-` } : {}),
        signal: o.signal,
      });
      if (!res.ok) throw statusError(res, repo, endpoint, file.path);
      if (from && res.status !== 206) {
        // the whole file came back: start again
        from = 0;
        hash = checksum(file);
      }
      fs.ftruncateSync(fd, from);
      let done = from;
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          fs.writeSync(fd, chunk, 0, chunk.length, done);
          hash?.update(chunk);
          done += chunk.length;
          o.onEvent?.({ kind: "progress", path: file.path, done, size: file.size });
        }
      } catch (err) {
        if (o.signal?.aborted || (err as Error).name === "AbortError") throw stopped();
        if ((err as NodeJS.ErrnoException).syscall === "write") throw err;
        throw new VaultRagError(
          "download_failed",
          `the download of ${file.path} broke off (${(err as Error).message}) — run the same command to resume it`,
          { cause: err },
        );
      }
    }
  } catch (err) {
    if (fd !== undefined) fs.closeSync(fd);
    if (err instanceof VaultRagError) throw err;
    throw diskError(part, err as NodeJS.ErrnoException);
  }
  fs.closeSync(fd);
  verify(file, part, hash);
  fs.renameSync(part, dest);
  return from;
}

/** Checks a fetched part against the listing; a part that fails is deleted, and the error says so. */
function verify(file: HubFile, part: string, hash: Hash | undefined): void {
  const size = fs.statSync(part).size;
  const got = hash?.digest("hex");
  const bad =
    size !== file.size
      ? `${size} bytes where the Hub lists ${file.size}`
      : got !== undefined && got !== digestOf(file)
        ? `checksum ${file.sha256 ? "sha256" : "git blob"} ${got} where the Hub lists ${digestOf(file)}`
        : undefined;
  if (!bad) return;
  fs.rmSync(part, { force: true });
  throw new VaultRagError(
    "download_failed",
    `${file.path} arrived damaged (${bad}) and was deleted — run the same command to fetch it again`,
  );
}

/**
 * Downloads a model's files into the Transformers.js cache, so that `--model transformers:<repo>`
 * finds them offline. Files already there and intact are kept; a `.part` left by a stopped pull is
 * resumed. `config.json` records the weights variant ({@link withDtype}).
 *
 * @example
 * ```ts
 * const s = await pullModel("Xenova/bge-small-en-v1.5", { onEvent: (e) => console.log(e.kind) });
 * s.spec; // "transformers:Xenova/bge-small-en-v1.5"
 * ```
 */
export async function pullModel(name: string, opts: PullOptions = {}): Promise<PullSummary> {
  const repo = checkRepo(name);
  const dtype = opts.dtype ?? DEFAULT_DTYPE;
  const dir = modelCacheFolder(opts.cacheDir ?? transformersCacheDir(), repo);
  const listing = await listModelFiles(repo, opts);
  const files = chooseFiles(repo, listing.files, dtype);
  opts.onEvent?.({ kind: "listed", files, bytes: files.reduce((n, f) => n + f.size, 0) });
  const endpoint = endpointOf(opts);
  const done: PullSummary["files"] = [];
  let downloaded = 0;
  for (const file of files) {
    if (opts.signal?.aborted) throw stopped();
    const dest = path.join(dir, ...file.path.split("/"));
    // config.json is written with the weights variant in it: fetched again each time (it is small)
    if (file.path !== "config.json" && alreadyThere(file, dest)) {
      opts.onEvent?.({ kind: "file", path: file.path, size: file.size, from: file.size });
      opts.onEvent?.({ kind: "done", path: file.path, size: file.size, reused: true });
      done.push({ path: file.path, bytes: file.size, reused: true, resumedFrom: 0 });
      continue;
    }
    const url = `${endpoint}/${repo}/resolve/${encodeURIComponent(listing.commit)}/${file.path.split("/").map(encodeURIComponent).join("/")}`;
    const from = await fetchFile(url, file, dest, repo, opts);
    downloaded += file.size - from;
    if (file.path === "config.json") {
      const text = fs.readFileSync(dest, "utf8");
      writeAtomically(dest, () => fs.writeFileSync(`${dest}.part`, withDtype(text, dtype)));
    }
    opts.onEvent?.({ kind: "done", path: file.path, size: file.size, reused: false });
    done.push({ path: file.path, bytes: file.size, reused: false, resumedFrom: from });
  }
  return { model: repo, spec: `transformers:${repo}`, dtype, dir, commit: listing.commit, files: done, downloaded };
}
