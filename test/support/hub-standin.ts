import { createHash } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";

/**
 * A stand-in Hugging Face Hub on a loopback port, laid out as the Hub is for `vault-rag models pull`
 * (`HF_ENDPOINT`): the model API's file list (`/api/models/<repo>/revision/<rev>?blobs=true`, with
 * sizes, the sha256 of the `.onnx` files as Git LFS gives it and the git blob hash of the others)
 * and the files (`/<repo>/resolve/<rev>/<path>`, with HTTP Range). A file can be held half sent
 * (`hold`), so a test can stop a download in the middle; every request is recorded.
 */
export interface HubStandIn {
  /** `http://127.0.0.1:<port>`, for HF_ENDPOINT. */
  endpoint: string;
  /** Requests for files, in order: the path asked for and its Range header. */
  fetched: { repo: string; path: string; range?: string }[];
  /** Serves `<repo>` with these files. */
  add(repo: string, files: Map<string, Buffer>): void;
  /** Lists `file` of `repo` with this sha256 instead of its own (a file damaged on the way). */
  misreport(repo: string, file: string, sha256: string): void;
  /** The next request for `file` sends its first half and then nothing; resolves once that half is sent. */
  hold(file: string): Promise<number>;
  /** Ends the held response's connection. */
  release(): void;
  close(): Promise<void>;
}

/** The commit the stand-in lists for every model. */
export const STANDIN_COMMIT = "0123456789abcdef0123456789abcdef01234567";

/** The files of a model folder, by their path in the repository. */
export function folderFiles(dir: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const f of fs.readdirSync(dir, { recursive: true }) as string[])
    if (fs.statSync(path.join(dir, f)).isFile())
      files.set(f.split(path.sep).join("/"), fs.readFileSync(path.join(dir, f)));
  return files;
}

const sha = (algo: string, ...parts: (string | Buffer)[]) => {
  const h = createHash(algo);
  for (const p of parts) h.update(p);
  return h.digest("hex");
};

/** Starts the stand-in on a free loopback port. */
export async function startHubStandIn(): Promise<HubStandIn> {
  const repos = new Map<string, Map<string, Buffer>>();
  const wrong = new Map<string, string>();
  const fetched: HubStandIn["fetched"] = [];
  let held: { file: string; sent: (n: number) => void } | undefined;
  let holding: http.ServerResponse | undefined;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const api = /^\/api\/models\/([^/]+\/[^/]+)\/revision\/([^/]+)$/.exec(url.pathname);
    if (api) {
      const files = repos.get(decodeURIComponent(api[1]));
      if (!files)
        return res.writeHead(404, { "content-type": "application/json" }).end('{"error":"Repository not found"}');
      const siblings = [...files].map(([p, b]) => ({
        rfilename: p,
        size: b.length,
        ...(p.endsWith(".onnx")
          ? { lfs: { sha256: wrong.get(`${api[1]}/${p}`) ?? sha("sha256", b), size: b.length, pointerSize: 134 } }
          : { blobId: sha("sha1", `blob ${b.length}\0`, b) }),
      }));
      return res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ id: api[1], sha: STANDIN_COMMIT, siblings }));
    }
    const resolve = /^\/([^/]+\/[^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(url.pathname);
    const repo = resolve && decodeURIComponent(resolve[1]);
    const file = resolve && decodeURIComponent(resolve[3]);
    const body = repo && file ? repos.get(repo)?.get(file) : undefined;
    if (!body || !repo || !file) return res.writeHead(404).end("Entry not found");
    const range = req.headers.range;
    fetched.push({ repo, path: file, ...(range ? { range } : {}) });
    const from = range ? Number(/^bytes=(\d+)-$/.exec(range)?.[1] ?? 0) : 0;
    const headers = { "content-type": "application/octet-stream", "content-length": String(body.length - from) };
    if (range) res.writeHead(206, { ...headers, "content-range": `bytes ${from}-${body.length - 1}/${body.length}` });
    else res.writeHead(200, headers);
    if (held?.file === file) {
      const half = Math.floor(body.length / 2);
      const sent = held.sent;
      held = undefined;
      holding = res;
      res.write(body.subarray(from, half), () => sent(half));
      return;
    }
    res.end(body.subarray(from));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const endpoint = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    endpoint,
    fetched,
    add: (repo, files) => void repos.set(repo, files),
    misreport: (repo, file, sum) => void wrong.set(`${repo}/${file}`, sum),
    hold: (file) => new Promise((sent) => (held = { file, sent })),
    release() {
      holding?.destroy();
      holding = undefined;
    },
    close: () =>
      new Promise<void>((r) => {
        holding?.destroy();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
