/**
 * Where the Transformers.js provider finds a model offline, and which of a model's files it reads.
 * The cache is the one the provider sets (`TRANSFORMERS_CACHE`, else `$HF_HOME/transformers`, else
 * the library's own default, `<@huggingface/transformers>/.cache/`). Transformers.js keeps a model
 * of the `main` revision there as `<cache>/<owner>/<name>/<file>`, the file's path as in the repository.
 */
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { VaultRagError } from "../errors.js";
import { makeDir } from "../make-dir.js";
import { transformersInstallHint } from "./transformers.js";

/**
 * ONNX weights variants and the suffix of their file (`onnx/model<suffix>.onnx`), as Transformers.js
 * names them. `q8` is the default of `vault-rag models pull`.
 */
export const WEIGHTS_SUFFIX = {
  fp32: "",
  fp16: "_fp16",
  q8: "_quantized",
  int8: "_int8",
  uint8: "_uint8",
  q4: "_q4",
} as const;

/** A weights variant (`--dtype`). */
export type Dtype = keyof typeof WEIGHTS_SUFFIX;

/** The weights `models pull` fetches unless told otherwise. */
export const DEFAULT_DTYPE: Dtype = "q8";

/** The files a model needs, whatever its weights. */
export const REQUIRED_FILES = ["config.json", "tokenizer.json", "tokenizer_config.json"] as const;

/** Files fetched when the model has them: special tokens, and the window limit sentence-transformers records. */
export const OPTIONAL_FILES = ["special_tokens_map.json", "sentence_bert_config.json"] as const;

/**
 * The weights file of a variant.
 *
 * @example
 * ```ts
 * weightsFile("q8"); // "onnx/model_quantized.onnx"
 * weightsFile("fp32"); // "onnx/model.onnx"
 * ```
 */
export function weightsFile(dtype: Dtype): string {
  return `onnx/model${WEIGHTS_SUFFIX[dtype]}.onnx`;
}

/**
 * Reads a `--dtype` value; anything else is a usage error naming the values.
 *
 * @example
 * ```ts
 * parseDtype("fp32"); // "fp32"
 * parseDtype("int4"); // throws: unknown weights "int4" — use fp32, fp16, q8, int8, uint8 or q4
 * ```
 */
export function parseDtype(value: string | undefined): Dtype {
  if (value === undefined) return DEFAULT_DTYPE;
  if (Object.hasOwn(WEIGHTS_SUFFIX, value)) return value as Dtype;
  const names = Object.keys(WEIGHTS_SUFFIX);
  throw new VaultRagError(
    "usage",
    `unknown weights "${value}" — use ${names.slice(0, -1).join(", ")} or ${names[names.length - 1]}`,
  );
}

/**
 * Checks a Hugging Face model name: `owner/name`, each part letters, digits, `-`, `_` and `.`.
 *
 * @example
 * ```ts
 * checkRepo("Xenova/bge-small-en-v1.5"); // "Xenova/bge-small-en-v1.5"
 * checkRepo("transformers:Xenova/bge-small-en-v1.5"); // "Xenova/bge-small-en-v1.5"
 * checkRepo("bge-small"); // throws: usage
 * ```
 */
export function checkRepo(name: string): string {
  const repo = name.replace(/^transformers:/, "");
  const part = /^[A-Za-z0-9][A-Za-z0-9._-]{0,95}$/;
  const [owner, model, ...rest] = repo.split("/");
  if (!rest.length && owner && model && part.test(owner) && part.test(model) && !repo.includes("..")) return repo;
  throw new VaultRagError(
    "usage",
    `"${name}" is no Hugging Face model name — give it as owner/name (e.g. Xenova/bge-small-en-v1.5)`,
  );
}

/**
 * The folder the Transformers.js provider reads cached models from, by the provider's rule:
 * `TRANSFORMERS_CACHE`, else `$HF_HOME/transformers`, else the library's default (`.cache/` in the
 * installed `@huggingface/transformers`, which must then be installed).
 *
 * @example
 * ```ts
 * transformersCacheDir({ HF_HOME: "/data/hf" }); // "/data/hf/transformers"
 * ```
 */
export function transformersCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  // as the provider reads them: an empty TRANSFORMERS_CACHE hides HF_HOME, and means the default
  const named = env.TRANSFORMERS_CACHE ?? (env.HF_HOME ? path.join(env.HF_HOME, "transformers") : undefined);
  if (named) return path.resolve(named);
  let entry: string;
  try {
    entry = createRequire(import.meta.url).resolve("@huggingface/transformers");
  } catch {
    throw new VaultRagError(
      "usage",
      `the transformers provider needs the @huggingface/transformers package, and its cache is inside it — ${transformersInstallHint()}; or set HF_HOME`,
    );
  }
  // the library's own rule: `.cache/` in the package's folder (its entry point is dist/<file>)
  return path.join(path.dirname(path.dirname(entry)), ".cache");
}

/**
 * The folder of a model in a Transformers.js cache.
 *
 * @example
 * ```ts
 * modelCacheFolder("/data/hf/transformers", "Xenova/bge-small-en-v1.5"); // "/data/hf/transformers/Xenova/bge-small-en-v1.5"
 * ```
 */
export function modelCacheFolder(cacheDir: string, repo: string): string {
  return path.join(cacheDir, ...repo.split("/"));
}

/**
 * Whether a model's files are in the cache: its config, tokenizer, and one weights file.
 *
 * @example
 * ```ts
 * isModelCached("Xenova/bge-small-en-v1.5"); // true after `vault-rag models pull Xenova/bge-small-en-v1.5`
 * ```
 */
export function isModelCached(repo: string, cacheDir?: string): boolean {
  let dir: string;
  try {
    dir = modelCacheFolder(cacheDir ?? transformersCacheDir(), repo);
  } catch {
    return false;
  }
  const has = (f: string) => fs.existsSync(path.join(dir, f));
  return REQUIRED_FILES.every(has) && Object.keys(WEIGHTS_SUFFIX).some((d) => has(weightsFile(d as Dtype)));
}

/**
 * A model's `config.json` with the weights variant recorded where Transformers.js reads it
 * (`transformers.js_config.dtype`): a provider that names no variant then loads these weights. The
 * full-precision weights are the library's default and need no record; a variant the config
 * already names is kept.
 *
 * @example
 * ```ts
 * withDtype('{"model_type":"bert"}', "q8"); // '{"model_type":"bert","transformers.js_config":{"dtype":"q8"}}'
 * ```
 */
export function withDtype(configText: string, dtype: Dtype): string {
  if (dtype === "fp32") return configText;
  let config: Record<string, unknown>;
  try {
    config = JSON.parse(configText);
  } catch {
    return configText;
  }
  const own = (config["transformers.js_config"] ?? {}) as Record<string, unknown>;
  if (own.dtype !== undefined) return configText;
  return JSON.stringify({ ...config, "transformers.js_config": { ...own, dtype } }, null, 2);
}

/** What {@link installFromFolder} installed. */
export interface FolderInstall {
  model: string;
  /** The model's folder in the cache. */
  dir: string;
  files: { path: string; bytes: number }[];
  dtype: Dtype;
}

/**
 * The folder that holds the model's files: `from` itself, or `from/<owner>/<name>` (the layout of
 * `--model-dir`), whichever has a `config.json`.
 */
function sourceFolder(from: string, repo: string): string {
  const nested = modelCacheFolder(from, repo);
  for (const dir of [from, nested]) if (fs.existsSync(path.join(dir, "config.json"))) return dir;
  if (!fs.existsSync(from))
    throw new VaultRagError("usage", `the folder ${from} does not exist — give the folder the model was copied into`);
  throw new VaultRagError(
    "usage",
    `no config.json in ${from} nor in ${nested} — copy the model's folder (config.json, tokenizer.json, onnx/…) there`,
  );
}

/**
 * Installs a model copied by hand (an air-gapped machine) into the cache: checks that the folder
 * holds the config, the tokenizer and the weights of `dtype` (each a readable, non-empty file; the
 * JSON files parse), then copies them into the model's cache folder, each through a `.part` file
 * renamed when complete.
 *
 * @example
 * ```ts
 * installFromFolder("Xenova/bge-small-en-v1.5", "/media/usb/bge-small-en-v1.5", { dtype: "q8" });
 * ```
 */
export function installFromFolder(
  repo: string,
  from: string,
  opts: { dtype?: Dtype; cacheDir?: string } = {},
): FolderInstall {
  const dtype = opts.dtype ?? DEFAULT_DTYPE;
  const src = sourceFolder(path.resolve(from), repo);
  const wanted = [...REQUIRED_FILES, weightsFile(dtype)];
  const missing = wanted.filter((f) => !isFilled(path.join(src, f)));
  if (missing.length)
    throw new VaultRagError(
      "usage",
      `${src} lacks ${missing.join(", ")}${missing.includes(weightsFile(dtype)) ? ` (the ${dtype} weights; --dtype chooses others)` : ""} — copy the model's whole folder`,
    );
  for (const f of wanted.filter((x) => x.endsWith(".json")))
    try {
      JSON.parse(fs.readFileSync(path.join(src, f), "utf8"));
    } catch (err) {
      throw new VaultRagError("usage", `${path.join(src, f)} is no JSON (${(err as Error).message}) — copy it again`);
    }
  const files = [...wanted, ...OPTIONAL_FILES.filter((f) => isFilled(path.join(src, f)))];
  const dir = modelCacheFolder(opts.cacheDir ?? transformersCacheDir(), repo);
  const installed = files.map((f) => {
    const to = path.join(dir, f);
    writeAtomically(to, () => {
      const text = f === "config.json" ? withDtype(fs.readFileSync(path.join(src, f), "utf8"), dtype) : undefined;
      if (text !== undefined) fs.writeFileSync(`${to}.part`, text);
      else fs.copyFileSync(path.join(src, f), `${to}.part`);
    });
    return { path: f, bytes: fs.statSync(to).size };
  });
  return { model: repo, dir, files: installed, dtype };
}

const isFilled = (file: string) => {
  try {
    const s = fs.statSync(file);
    return s.isFile() && s.size > 0;
  } catch {
    return false;
  }
};

/**
 * Writes `file` through `<file>.part` (`write` fills the part), renamed when complete; a failure
 * of the disk is an `io` error that says where, and the part is removed.
 *
 * @example
 * ```ts
 * writeAtomically("/data/hf/transformers/a/b/config.json", () => fs.writeFileSync("/data/hf/transformers/a/b/config.json.part", text));
 * ```
 */
export function writeAtomically(file: string, write: () => void): void {
  try {
    makeDir(path.dirname(file));
    write();
    fs.renameSync(`${file}.part`, file);
  } catch (err) {
    fs.rmSync(`${file}.part`, { force: true });
    throw diskError(file, err as NodeJS.ErrnoException);
  }
}

/**
 * A failure to write into the cache, in one line: where, why, and what to do.
 *
 * @example
 * ```ts
 * diskError("/data/hf/transformers/a/b/onnx/model.onnx", enospc).what;
 * // "cannot write /data/hf/transformers/a/b/onnx/model.onnx: no space left on the disk — free space, or set HF_HOME to a folder on another disk"
 * ```
 */
export function diskError(file: string, err: NodeJS.ErrnoException): VaultRagError {
  if (err instanceof VaultRagError) return err;
  const why =
    err.code === "ENOSPC" || err.code === "EDQUOT"
      ? "no space left on the disk — free space, or set HF_HOME to a folder on another disk"
      : err.code === "EACCES" || err.code === "EPERM" || err.code === "EROFS"
        ? "not allowed — set HF_HOME to a folder you can write"
        : `${err.message} — set HF_HOME to another folder`;
  return new VaultRagError("io", `cannot write ${file}: ${why}`, { cause: err });
}
