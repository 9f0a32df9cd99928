import type { Props } from "../props.js";

/** Metadata carried by every chunk; the store filters on these fields. */
export interface ChunkMeta {
  /** Vault-relative path with `/` separators. */
  path: string;
  title: string;
  /** Breadcrumb `Title > H1 > H2`. */
  section: string;
  tags: string[];
  /** Parent folder, "" at the root. */
  folder: string;
  /** First path component, "" at the root. */
  top_folder: string;
  /** Unix seconds, integer. */
  mtime: number;
  /** The note's date in Unix seconds: a frontmatter date, a date in its file name, else its mtime. */
  date: number;
  /** Where `date` came from: the frontmatter key (`updated`, …), `filename` or `mtime`. */
  date_source: string;
  /** The note's properties by normalised name. */
  props: Props;
  word_count: number;
  links: string[];
  aliases: string[];
  /** Position of the chunk in its note, from 0. */
  ordinal: number;
  /** 1-based, inclusive, in the source file. */
  start_line: number;
  end_line: number;
  /** Hash of the chunk's embedding text (the embedding cache key). */
  hash: string;
  /** What file the chunk is of: `pdf`, `canvas` or `docx`; absent (a `note`) for a Markdown note. */
  file_type?: string;
  /** The PDF page the chunk is on, from 1; absent or 0 for a file without pages. */
  page?: number;
}

/** One chunk of a note. */
export interface Chunk {
  /** Stable: the same note text at the same path gives the same ids. */
  id: string;
  /** The Markdown of the chunk, as in the file. */
  text: string;
  /** What is embedded: a first line with the headings below the title (empty at the top level), then the section text. */
  embedText: string;
  meta: ChunkMeta;
}
