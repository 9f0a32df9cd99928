export { indexVault, type IndexOptions, type IndexSummary, type IndexPhase } from "./indexer.js";
export {
  manifestFor,
  modelMismatch,
  sameModel,
  modelSpecOf,
  indexModelSpec,
  embedderForIndex,
  checkIndexModel,
} from "./manifest.js";
export { acquireLock, lockHolder, releaseHeldLocks } from "./lock.js";
export { batchLine, watchVault, WATCH_DEFAULTS, type Watcher, type WatchOptions } from "./watch.js";
export { checkIndex, checkChromaIndex, type CheckReport } from "./check.js";
export { migrateIndex, type MigrateSummary } from "./migrate.js";
export { staleNotes, staleInVault } from "./stale.js";
export { offThreadBusy, readNoteTextOffThread, staleInVaultOffThread } from "./off-thread.js";
