/** Progress of a batch embedding run. */
export type EmbedProgress = (done: number, total: number) => void;

/**
 * An embedding model. Documents and queries are embedded separately because some models need
 * different prefixes. `id` is `provider:model` and is what the index manifest records.
 */
export interface Embedder {
  readonly id: string;
  readonly provider: string;
  readonly model: string;
  readonly dimensions: number;
  /** Largest input the model reads, in its own tokens. */
  readonly maxTokens: number;
  readonly documentPrefix: string;
  readonly queryPrefix: string;
  /** The vectors come out L2-normalised. */
  readonly normalized: boolean;
  embedDocuments(texts: string[], onProgress?: EmbedProgress, labels?: string[]): Promise<Float32Array[]>;
  embedQuery(text: string): Promise<Float32Array>;
  /** Tokens the model would read for a text (before its cut), when the tokenizer is local. */
  countTokens?(text: string): number;
  /** Share (0–1) of a text's non-space characters the model has no token for, when the tokenizer is local. */
  unknownShare?(text: string): number;
  close?(): Promise<void>;
}

/** Above this share of characters unknown to the model, a text is one it cannot read. */
const UNREAD_SHARE = 0.5;

/**
 * Whether a model cannot read a text: over half its characters are unknown to its tokenizer
 * (Japanese to an English model, which gives every such text one vector). A search ranks such a
 * question by its words alone; `index` names such notes (`script_unread`).
 *
 * @example
 * ```ts
 * unreadable(useLiteEmbedder(), "テーマ"); // true
 * ```
 */
export function unreadable(embedder: Embedder, text: string): boolean {
  return (embedder.unknownShare?.(text) ?? 0) > UNREAD_SHARE;
}
