/**
 * How each embedding model family wants its texts: the prefix before a document, the prefix (or
 * instruction) before a query, and the pooling that turns token vectors into one vector. Each rule
 * follows the family's model card. Ollama pools on its server; the pooling here is for
 * Transformers.js, which pools in the client.
 */
export interface ModelProfile {
  /** The family the model was recognised as (`plain` when none). */
  family: "nomic" | "bge" | "bge-m3" | "mxbai" | "arctic" | "e5" | "gte" | "plain";
  pooling: "cls" | "mean";
  documentPrefix: string;
  queryPrefix: string;
}

/** The query instruction of BGE v1.5 (English), mxbai-embed-large and snowflake-arctic-embed. */
export const RETRIEVAL_INSTRUCTION = "Represent this sentence for searching relevant passages: ";

/**
 * The profile of a model, by its name (with or without an owner or tag: `Xenova/bge-small-en-v1.5`,
 * `mxbai-embed-large:latest`).
 *
 * | family | document prefix | query prefix | pooling |
 * | --- | --- | --- | --- |
 * | nomic-embed | `search_document: ` | `search_query: ` | mean |
 * | bge (v1.5, English) | none | the retrieval instruction | cls |
 * | bge-m3 | none | none | cls |
 * | mxbai-embed | none | the retrieval instruction | cls |
 * | snowflake-arctic-embed | none | the retrieval instruction | cls |
 * | e5, multilingual-e5 | `passage: ` | `query: ` | mean |
 * | gte | none | none | mean |
 * | any other | none | none | mean |
 *
 * @example
 * ```ts
 * modelProfile("Xenova/bge-m3"); // { family: "bge-m3", pooling: "cls", documentPrefix: "", queryPrefix: "" }
 * ```
 */
export function modelProfile(model: string): ModelProfile {
  const m = model.toLowerCase();
  if (m.includes("nomic-embed"))
    return { family: "nomic", pooling: "mean", documentPrefix: "search_document: ", queryPrefix: "search_query: " };
  if (m.includes("bge-m3")) return { family: "bge-m3", pooling: "cls", documentPrefix: "", queryPrefix: "" };
  if (/(^|[/_:-])bge-/.test(m))
    return { family: "bge", pooling: "cls", documentPrefix: "", queryPrefix: RETRIEVAL_INSTRUCTION };
  if (m.includes("mxbai-embed"))
    return { family: "mxbai", pooling: "cls", documentPrefix: "", queryPrefix: RETRIEVAL_INSTRUCTION };
  if (m.includes("arctic-embed"))
    return { family: "arctic", pooling: "cls", documentPrefix: "", queryPrefix: RETRIEVAL_INSTRUCTION };
  if (/(^|[/_:-])e5-/.test(m))
    return { family: "e5", pooling: "mean", documentPrefix: "passage: ", queryPrefix: "query: " };
  if (/(^|[/_:-])gte-/.test(m)) return { family: "gte", pooling: "mean", documentPrefix: "", queryPrefix: "" };
  return { family: "plain", pooling: "mean", documentPrefix: "", queryPrefix: "" };
}

/**
 * What search needs to know of a model, measured here (docs/quality.md): the languages its vectors
 * can rank (`any` for a model trusted to read what it is given), and search settings chosen for it
 * on the dev sets, over the defaults (`SEARCH_DEFAULTS`, chosen for the bundled model).
 */
export interface ModelSearchProfile {
  /** ISO 639-1 codes of the languages the model's vectors rank, or `any`. */
  languages: readonly string[] | "any";
  /** The BM25 list's weight in a hybrid fusion, when it differs from the default (docs/decisions/fusion-weight.md). */
  alpha?: number;
}

/**
 * Profiles by model name (the part after any owner, lower case: `Xenova/all-MiniLM-L6-v2` is
 * `all-minilm-l6-v2`). A model not listed reads any language and takes the defaults.
 */
export const MODEL_SEARCH_PROFILES: Readonly<Record<string, ModelSearchProfile>> = {
  "universal-sentence-encoder-lite": { languages: ["en"] },
  // BM25 0.2: the only weight of the sweep that keeps til and examples, and each kind of question,
  // within 0.02 of the better single mode (docs/decisions/fusion-weight.md, "Per model")
  "all-minilm-l6-v2": { languages: ["en"], alpha: 0.2 },
};

/**
 * The search profile of a model (see {@link MODEL_SEARCH_PROFILES}).
 *
 * @example
 * ```ts
 * searchProfile("sentence-transformers/all-MiniLM-L6-v2").languages; // ["en"]
 * searchProfile("nomic-embed-text").languages; // "any"
 * ```
 */
export function searchProfile(model: string): ModelSearchProfile {
  const name = (model.toLowerCase().split("/").at(-1) ?? "").replace(/:.*$/, "");
  return MODEL_SEARCH_PROFILES[name] ?? { languages: "any" };
}
