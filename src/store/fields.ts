import type { Props } from "../props.js";

/**
 * The metadata fields every record carries, and their types. The filter language validates against
 * these fields (and the index's property names), so a typo in a field name is an error instead of a filter that silently matches nothing.
 */
export const STRING_FIELDS = ["path", "title", "section", "folder", "top_folder", "date_source", "file_type"] as const;
export const NUMBER_FIELDS = ["mtime", "date", "word_count", "ordinal", "start_line", "end_line", "page"] as const;
export const LIST_FIELDS = ["tags", "links", "aliases"] as const;

export type StringField = (typeof STRING_FIELDS)[number];
export type NumberField = (typeof NUMBER_FIELDS)[number];
export type ListField = (typeof LIST_FIELDS)[number];
export type MetaField = StringField | NumberField | ListField;

/** A record's metadata, as stored and filtered. */
export interface RecordMetadata {
  path: string;
  title: string;
  section: string;
  folder: string;
  top_folder: string;
  mtime: number;
  /** The note's date in Unix seconds (frontmatter, file name or mtime). */
  date: number;
  /** Where `date` came from: a frontmatter key, `filename` or `mtime`. */
  date_source: string;
  word_count: number;
  ordinal: number;
  start_line: number;
  end_line: number;
  tags: string[];
  links: string[];
  aliases: string[];
  /** The note's properties by normalised name; a filter reaches them by name or as `prop.<name>`. */
  props: Props;
  /** Hash of the embedded text. */
  hash: string;
  /**
   * What file the passage is of: `note` (Markdown), `pdf`, `canvas` or `docx`; `note` when absent.
   * Not `type`: that name is a common Obsidian property (`type: book`), which a filter reaches by it.
   */
  file_type?: string;
  /** The PDF page the passage is on, from 1; 0 (or absent) for a file without pages. */
  page?: number;
}

/** The prefix that reaches a property by name whatever it is called (`prop.path`: the property, not the field). */
export const PROP_PREFIX = "prop.";

export const ALL_FIELDS: readonly MetaField[] = [...STRING_FIELDS, ...NUMBER_FIELDS, ...LIST_FIELDS];

export function fieldKind(field: string): "string" | "number" | "list" | undefined {
  if ((STRING_FIELDS as readonly string[]).includes(field)) return "string";
  if ((NUMBER_FIELDS as readonly string[]).includes(field)) return "number";
  if ((LIST_FIELDS as readonly string[]).includes(field)) return "list";
  return undefined;
}
