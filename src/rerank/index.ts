export type { Reranker, RerankerOptions } from "./types.js";
export { createReranker, DEFAULT_RERANKER, RERANK_DEFAULTS, rerankerKind, rerankerSendsText } from "./registry.js";
export {
  crossEncoderReranker,
  CROSS_ENCODER_BATCH,
  type CrossEncoderModule,
  type CrossEncoderOptions,
  type PairTokenizer,
  type SequenceClassifier,
} from "./cross-encoder.js";
export { rerankEndpoint, serverReranker } from "./server.js";
