export type { Chunk, ChunkMeta } from "./types.js";
export { chunkNote } from "./chunker.js";
export { countWords } from "./words.js";
export {
  CHUNK_DEFAULTS,
  CHUNKER_VERSION,
  withChunkDefaults,
  type ChunkOptions,
  type ChunkOptionsWithDefaults,
} from "./defaults.js";
export { walkSections, type SectionVisitor } from "./sections.js";
export { chunkAttachment, pageLabel } from "./attachment.js";
