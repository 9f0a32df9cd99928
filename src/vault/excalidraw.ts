/**
 * Drawings of Obsidian's Excalidraw plugin (`Name.excalidraw.md`): Markdown whose words are the
 * drawing's text elements, followed by the drawing itself as tens of kilobytes of JSON inside an
 * Obsidian comment (`%%`). A search reads the words; the JSON would fill the index with
 * `"strokeColor"` and coordinates.
 */

/**
 * Whether a note is an Excalidraw drawing: its name ends in `.excalidraw.md`, or its frontmatter
 * has the plugin's `excalidraw-plugin` key.
 *
 * @example
 * ```ts
 * isExcalidraw("Drawings/Virtualization.excalidraw.md", {}); // true
 * isExcalidraw("Notes/On drawing.md", { "excalidraw-plugin": "parsed" }); // true
 * ```
 */
export function isExcalidraw(path: string, frontmatter: Record<string, unknown>): boolean {
  return /\.excalidraw\.md$/i.test(path) || frontmatter["excalidraw-plugin"] !== undefined;
}

// the plugin's banner, shown to readers without the plugin (2.x adds a sentence after it)
const BANNER = /^==⚠.*⚠==/;
// the plugin's data sections, in the comment that closes the note
const DATA_HEADING = /^#{1,6}\s+(?:Drawing|Embedded Files|Element Links)\s*$/i;
// a block id the plugin gives each text element (`Hypervisor ^OauK8fFC`), matched from the last
// `^` (a pattern that starts with \s+ is quadratic on a long run of spaces)
const BLOCK_ID = /^\^[A-Za-z0-9-]+\s*$/;

/** A line without a trailing block id. */
function withoutBlockId(line: string): string {
  const at = line.lastIndexOf("^");
  return at > 0 && /\s/.test(line[at - 1]) && BLOCK_ID.test(line.slice(at)) ? line.slice(0, at).trimEnd() : line;
}

/**
 * The part of an Excalidraw note's body a reader searches: its text without the plugin's banner,
 * without the block ids of its text elements, and cut at the `%%` comment that holds the drawing's
 * data (`# Drawing`, `# Embedded Files`). Lines keep their numbers; the body is returned unchanged
 * when it holds no such comment, and is empty when the drawing has no text elements.
 *
 * @example
 * ```ts
 * excalidrawText("==⚠  Switch to EXCALIDRAW VIEW ⚠==\n# Text Elements\nHypervisor ^OauK8fFC\n%%\n# Drawing\n```json\n{}\n```\n%%\n");
 * // "\n# Text Elements\nHypervisor\n"
 * ```
 */
export function excalidrawText(body: string): string {
  const lines = body.split("\n");
  let end = lines.length;
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() !== "%%") continue;
    let j = i + 1;
    while (j < lines.length && !lines[j].trim()) j++;
    if (j < lines.length && DATA_HEADING.test(lines[j])) {
      end = i;
      break;
    }
  }
  const kept = lines.slice(0, end).map((l) => (BANNER.test(l) ? "" : withoutBlockId(l)));
  // a drawing with no text elements has no words: its `# Text Elements` heading alone is no text
  if (kept.every((l) => !l.trim() || /^#{1,6}\s+Text Elements\s*$/i.test(l.trim()))) return "";
  return end < lines.length ? kept.join("\n") + "\n" : kept.join("\n");
}
