/**
 * OSC 8 hyperlinks (https://gist.github.com/egmontkob/eb114294efbcd5adb1944c9f3cb5feaf): on a
 * terminal that shows them, a hit's `path:line` opens the note. In an Obsidian vault (one with an
 * `.obsidian/` folder) the link opens it in Obsidian; elsewhere it is the file's `file://` URL.
 * Terminals that do not know OSC 8 ignore it and print the text alone.
 */
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

/**
 * Wraps `text` in an OSC 8 link to `url` (which must be printable ASCII: encode it first).
 *
 * @example
 * ```ts
 * osc8("file:///notes/a.md", "a.md:3"); // "\x1b]8;;file:///notes/a.md\x1b\\a.md:3\x1b]8;;\x1b\\"
 * ```
 */
export function osc8(url: string, text: string): string {
  return `\x1b]8;;${url}\x1b\\${text}\x1b]8;;\x1b\\`;
}

/**
 * The link of a note in a vault: `obsidian://open?vault=<folder name>&file=<path>` when the vault
 * is an Obsidian vault, else the note's `file://` URL.
 *
 * @example
 * ```ts
 * noteLinker("/home/me/notes")("robots/SMARS.md");
 * // "obsidian://open?vault=notes&file=robots%2FSMARS.md" (with /home/me/notes/.obsidian)
 * // "file:///home/me/notes/robots/SMARS.md" (without)
 * ```
 */
export function noteLinker(vault: string): (notePath: string) => string {
  const obsidian = fs.existsSync(path.join(vault, ".obsidian"));
  const name = encodeURIComponent(path.basename(vault));
  return (notePath) =>
    obsidian
      ? `obsidian://open?vault=${name}&file=${encodeURIComponent(notePath)}`
      : pathToFileURL(path.join(vault, notePath)).href;
}

/**
 * Whether to print links: only where colour is on and stdout is a terminal (`--color never`,
 * `NO_COLOR` and a pipe or file turn them off, as they do colour; `--color always` into a file
 * colours without links).
 *
 * @example
 * ```ts
 * useLinks(true, process.stdout); // true on a terminal with colour
 * ```
 */
export function useLinks(color: boolean, stream: { isTTY?: boolean }): boolean {
  return color && !!stream.isTTY;
}
