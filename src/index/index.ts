export { indexVault, manifestFor, modelMismatch, sameModel, type IndexOptions, type IndexSummary, type IndexPhase } from "./indexer.js";
export { acquireLock } from "./lock.js";
