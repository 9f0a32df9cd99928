import { parse as parseYaml, YAMLParseError } from "yaml";
import { withoutDataPayloads } from "./data-uri.js";
import { simpleYaml } from "./simple-yaml.js";

/** The frontmatter block split off a note. */
export interface Frontmatter {
  /** Parsed YAML mapping, or `{}` when absent or invalid. */
  data: Record<string, unknown>;
  /** The text after the frontmatter. */
  body: string;
  /** 1-based line where the body starts. */
  bodyStartLine: number;
  /** The YAML as written between the fences (from line 2), or `""` when there is none or it is invalid. */
  yaml: string;
  /** Set when YAML was present but invalid: message and 1-based line in the file. */
  error?: { message: string; line: number };
  /** Set when the YAML is over {@link MAX_FRONTMATTER_BYTES}: its size in bytes (it is not parsed). */
  oversized?: number;
}

/**
 * The largest frontmatter parsed, in bytes (UTF-8, less the base64 of pasted images, which the
 * index leaves out: {@link withoutDataPayloads}); a bigger one is left unread, and the note is
 * indexed by its body. Ordinary properties are a few hundred bytes.
 */
export const MAX_FRONTMATTER_BYTES = 64 * 1024;

/**
 * How many times frontmatter may repeat an anchor (`*name` for `&name`), counted as the YAML
 * library counts them: an alias of a value that holds aliases weighs as many. A hundred aliases of
 * one list of 40,000 tags made 4 million values to read.
 */
export const MAX_FRONTMATTER_ALIASES = 10;

/**
 * Splits `---` YAML frontmatter off a note and parses it with a real YAML parser.
 * Frontmatter must start on the first line; it ends at the next `---` or `...` line. Frontmatter
 * over {@link MAX_FRONTMATTER_BYTES} is not parsed (`oversized`), and one that repeats its anchors
 * more than {@link MAX_FRONTMATTER_ALIASES} times is invalid.
 *
 * @example
 * ```ts
 * splitFrontmatter("---\ntags: [a]\n---\n# Hi\n").data.tags; // ["a"]
 * ```
 */
export function splitFrontmatter(text: string): Frontmatter {
  const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const firstEol = src.indexOf("\n");
  const firstLine = (firstEol < 0 ? src : src.slice(0, firstEol)).replace(/\r$/, "");
  if (firstLine !== "---") return { data: {}, body: src, bodyStartLine: 1, yaml: "" };
  // find the closing fence line
  let pos = firstEol + 1;
  let line = 2;
  while (pos > 0 && pos <= src.length) {
    const eol = src.indexOf("\n", pos);
    const l = (eol < 0 ? src.slice(pos) : src.slice(pos, eol)).replace(/\r$/, "");
    if (l === "---" || l === "...") {
      const yamlText = src.slice(firstEol + 1, pos);
      const body = eol < 0 ? "" : src.slice(eol + 1);
      const bodyStartLine = line + 1;
      const bytes = frontmatterBytes(yamlText);
      if (bytes > MAX_FRONTMATTER_BYTES) return { data: {}, body, bodyStartLine, yaml: "", oversized: bytes };
      try {
        // the library counts an anchor's own value as one use of it
        const maxAliasCount = MAX_FRONTMATTER_ALIASES + 1;
        const parsed: unknown =
          yamlText.trim() === ""
            ? {}
            : (simpleYaml(yamlText) ?? parseYaml(yamlText, { uniqueKeys: false, logLevel: "error", maxAliasCount }));
        if (parsed === null || parsed === undefined) return { data: {}, body, bodyStartLine, yaml: "" };
        if (typeof parsed !== "object" || Array.isArray(parsed)) {
          return {
            data: {},
            body,
            bodyStartLine,
            yaml: "",
            error: { message: "frontmatter is not a key: value mapping", line: 2 },
          };
        }
        return { data: parsed as Record<string, unknown>, body, bodyStartLine, yaml: yamlText };
      } catch (err) {
        const yerr = err as YAMLParseError;
        if (!(err instanceof YAMLParseError) && /alias count/i.test(yerr.message ?? "")) {
          const message = `it repeats its anchors (*name) more than ${MAX_FRONTMATTER_ALIASES} times`;
          return { data: {}, body, bodyStartLine, yaml: "", error: { message, line: 2 } };
        }
        const relLine = yerr.linePos?.[0]?.line ?? 1;
        // the YAML library ends its first line with its own "at line L, column C:" before a code
        // frame; the warning gives the file's line itself
        const msg = (yerr.message ?? String(err))
          .split("\n")[0]
          .replace(/ at line \d+, column \d+:?\s*$/, "")
          .replace(/:\s*$/, "");
        return { data: {}, body, bodyStartLine, yaml: "", error: { message: msg, line: relLine + 1 } };
      }
    }
    if (eol < 0) break;
    pos = eol + 1;
    line++;
  }
  // no closing fence: not frontmatter
  return { data: {}, body: src, bodyStartLine: 1, yaml: "" };
}

/** The size of frontmatter as {@link MAX_FRONTMATTER_BYTES} counts it: UTF-8 bytes, less pasted images' base64. */
function frontmatterBytes(yaml: string): number {
  // at most 3 bytes per UTF-16 unit: under the limit, nothing to count
  if (yaml.length * 3 <= MAX_FRONTMATTER_BYTES) return yaml.length;
  const bytes = Buffer.byteLength(yaml, "utf8");
  return bytes <= MAX_FRONTMATTER_BYTES ? bytes : Buffer.byteLength(withoutDataPayloads(yaml), "utf8");
}
