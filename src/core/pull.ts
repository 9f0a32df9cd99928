/**
 * `vault-rag models pull`: a model's files from the Hugging Face Hub, or from a folder copied by
 * hand, into the cache the Transformers.js provider reads offline. The work is the embedding
 * room's (src/embed/hub-download.ts, src/embed/hub-cache.ts); the interfaces call it from here.
 */
export {
  DEFAULT_HF_ENDPOINT,
  pullModel,
  type HubFile,
  type PullEvent,
  type PullOptions,
  type PullSummary,
} from "../embed/hub-download.js";
export {
  checkRepo,
  DEFAULT_DTYPE,
  installFromFolder,
  isModelCached,
  parseDtype,
  transformersCacheDir,
  weightsFile,
  type Dtype,
  type FolderInstall,
} from "../embed/hub-cache.js";
