export type { Note, VaultFile } from "./types.js";
export type { LinkText } from "./link-text.js";
export {
  walkVault,
  assertVaultFolder,
  whyNotWalked,
  whyFolderNotWalked,
  SKIPPED_FOLDERS,
  IGNORE_FILE,
} from "./walk.js";
export { parseNote, hashText, noteFolder, type NoteOptions } from "./note.js";
export {
  DEFAULT_DATE_KEYS,
  noteDate,
  propName,
  propType,
  readProperties,
  type DateSource,
  type PropType,
  type Props,
  type PropValue,
} from "./properties.js";
export { readPropertyTypes, typesKey, TYPES_FILE, type ObsidianType } from "./property-types.js";
export { readNote, readVaultFile, isSkippedFile } from "./read.js";
export { normaliseTags, findInlineRefs, frontmatterList } from "./tags.js";
export { inlineTag } from "./tag-pattern.js";
export { splitFrontmatter } from "./frontmatter.js";
export { headingText, parseInline, scanBlocks, type BlockScan } from "./markdown.js";
export { linkResolver, linkStem, linkTargets, nameWords, noteLinkResolver, oneNote } from "./links.js";
export {
  capText,
  GET_NOTE_MAX_CHARS,
  readNoteText,
  resolveNote,
  safeNotePath,
  sectionText,
  whyNoteMissing,
} from "./note-text.js";
export { isExcalidraw } from "./excalidraw.js";
export { LEAVE_OUT_DEFAULTS, withoutQueries, type LeaveOut } from "./queries.js";
export { exactNotePath } from "./note-lookup.js";
export {
  ATTACHMENT_TYPES,
  FILE_TYPES,
  countFiles,
  fileTypeOf,
  type Attachment,
  type AttachmentPart,
  type FileType,
  type Unreadable,
} from "./attachments/types.js";
export {
  ATTACHMENT_MEMORY_MB,
  ATTACHMENT_SECONDS,
  MAX_ATTACHMENT_BYTES,
  OCR_PAGE_SECONDS,
  readAttachment,
  readAttachmentBytes,
  type AttachmentOptions,
  type AttachmentRead,
} from "./attachments/read.js";
export { readAttachmentOffThread } from "./attachments/thread.js";
export { OCR_TOOLS, ocrMissing } from "./attachments/ocr.js";
