/**
 * A reranker: a model that reads a question beside each candidate passage and scores how well the
 * passage answers it (a cross-encoder), where an embedding model scores each text on its own. A
 * search asks it to reorder the fused top candidates, before the per-note cap.
 */
export interface Reranker {
  /** The spec it was made from (`transformers:<owner>/<name>`, or a server's URL). */
  readonly id: string;
  /**
   * One score per passage, in the passages' order: higher is more relevant. Scores compare only
   * within one call (a model's logits, or a server's relevance scores).
   */
  rerank(query: string, passages: string[]): Promise<number[]>;
}

/** Options of the rerankers' providers. */
export interface RerankerOptions {
  /** Transformers.js: a folder holding `<owner>/<name>/config.json`, `tokenizer.json`, `onnx/model.onnx`. */
  modelDir?: string;
  /** Transformers.js: the model cache (else `TRANSFORMERS_CACHE`, else `HF_HOME/transformers`, else the library's). */
  cacheDir?: string;
}
