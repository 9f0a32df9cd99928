/** Which reranker a search of an open vault uses, and the rerankers it keeps loaded. */
import { resolveRerank, RERANK_ENV } from "../config.js";
import { ALLOW_REMOTE_ENV, remoteAllowed } from "../embed/remote.js";
import { VaultRagError } from "../errors.js";
import { createReranker, rerankerKind, type Reranker } from "../rerank/index.js";
import type { OpenVaultOptions } from "./types.js";

/** The most rerankers a handle keeps loaded (a server's callers may name several). */
const KEPT = 4;

/** What a vault handle knows of rerankers: the configured one, and each one made, kept loaded. */
export interface Rerankers {
  /** The reranker a request that says nothing of it uses (`rerank`, else `VAULT_RAG_RERANK`). */
  configured?: string;
  /** What a request's `rerank` means for this handle: a spec, `true` (the default reranker), or off. */
  choose(asked: boolean | string | undefined): boolean | string;
  /** The reranker of a spec, made once and kept while it is one of the last {@link KEPT} used. */
  reranker(spec: string): Reranker;
}

/**
 * The rerankers of a vault handle. A request over MCP or HTTP (`remote`) may name a reranker server
 * only when it is the configured one or `VAULT_RAG_ALLOW_REMOTE` names it: the server is sent the
 * question and passages. A caller on this machine (the CLI, the library) names one by choosing it.
 * The vault's settings file (`fromFile`: its path and `rerank`, read when a search first needs it)
 * names the reranker last, after the option and `VAULT_RAG_RERANK`; a server it names is used only
 * when `VAULT_RAG_ALLOW_REMOTE` names it too.
 *
 * @example
 * ```ts
 * const r = rerankersOf({ rerank: "http://127.0.0.1:8012" });
 * r.choose(undefined); // "http://127.0.0.1:8012"
 * r.choose(false); // false
 * ```
 */
export function rerankersOf(
  opts: OpenVaultOptions,
  env: NodeJS.ProcessEnv = process.env,
  fromFile: () => { file: string; spec?: string } = () => ({ file: "" }),
): Rerankers {
  const configured = resolveRerank(opts.rerank, env);
  const made = new Map<string, Reranker>();
  /** The vault settings file's reranker, read when a search first needs it; a server only with consent. */
  const filed = (): string | undefined => {
    const { file, spec } = fromFile();
    if (spec === undefined) return undefined;
    let kind;
    try {
      kind = rerankerKind(spec).kind;
    } catch (e) {
      throw new VaultRagError("usage", `the rerank setting of ${file}: ${(e as VaultRagError).what}`);
    }
    if (kind === "server" && !remoteAllowed(spec, env))
      throw new VaultRagError(
        "remote_model",
        `vault-rag: the settings file ${file} names the reranker server ${spec}, which would be sent the question and passages, and a file in the vault is no consent — nothing was sent; name it in ${ALLOW_REMOTE_ENV} or ${RERANK_ENV}, or pass --no-rerank`,
      );
    return spec;
  };
  return {
    configured,
    choose(asked) {
      if (asked === false) return false;
      if (asked === undefined || asked === true) {
        if (configured === undefined) return filed() ?? asked ?? false;
        try {
          rerankerKind(configured);
        } catch (e) {
          const from = opts.rerank !== undefined ? "the rerank option" : RERANK_ENV;
          throw new VaultRagError("usage", `${from}: ${(e as VaultRagError).what}`);
        }
        return configured;
      }
      const k = rerankerKind(asked);
      if (opts.remote && k.kind === "server" && asked.trim() !== configured && !remoteAllowed(asked, env))
        throw new VaultRagError(
          "remote_model",
          `vault-rag: the reranker ${asked} would be sent the question and passages, and nothing on this machine names it — nothing was sent; name it in ${ALLOW_REMOTE_ENV} or ${RERANK_ENV} where this server runs`,
        );
      return asked;
    },
    reranker(spec) {
      let r = made.get(spec);
      if (r) made.delete(spec);
      else r = createReranker(spec, { modelDir: opts.modelDir, cacheDir: opts.cacheDir });
      made.set(spec, r);
      if (made.size > KEPT) made.delete(made.keys().next().value!);
      return r;
    },
  };
}
