import type { LinkText } from "./link-text.js";
import type { DateSource, Props } from "./properties.js";

/** A parsed note: everything later rooms need, nothing about how it was read. */
export interface Note {
  /** Vault-relative path with `/` separators, e.g. `robots/SMARS.md`. */
  path: string;
  /** Frontmatter `title`, else the file name without `.md`. */
  title: string;
  aliases: string[];
  /** Lowercased, deduplicated, `#` stripped; nested tags also yield their parents. */
  tags: string[];
  /** Wikilink targets (`[[Note#Heading|alias]]` gives `Note`), deduplicated in order. */
  links: string[];
  /** Each link (wikilink or Markdown link to a note) with the sentence that holds it, in order. */
  linkTexts: LinkText[];
  /** Modification time in Unix seconds (integer). */
  mtime: number;
  /** The note text after the frontmatter, with `\n` line endings. */
  body: string;
  /** 1-based line in the file where `body` starts. */
  bodyStartLine: number;
  /**
   * The frontmatter's YAML as written (from line 2), `""` when there is none or it is invalid: the
   * text of a note that has properties and no body.
   */
  properties?: string;
  /** Frontmatter properties by normalised name (see `readProperties`). */
  props: Props;
  /** The note's date in Unix seconds: from its frontmatter, its file name or its mtime (see `noteDate`). */
  date: number;
  /** Where `date` came from: the frontmatter key, `filename` or `mtime`. */
  dateSource: DateSource;
  /** Content hash of the whole file (sha256, hex). */
  hash: string;
}

/** A file found by the walker, before it is read. */
export interface VaultFile {
  /** Vault-relative path with `/` separators. */
  path: string;
  /** Absolute path on disk. */
  absPath: string;
  /** Modification time in Unix seconds. */
  mtime: number;
  size: number;
}
