import { parse as parseYaml, YAMLParseError } from "yaml";

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
}

/**
 * Splits `---` YAML frontmatter off a note and parses it with a real YAML parser.
 * Frontmatter must start on the first line; it ends at the next `---` or `...` line.
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
      try {
        const parsed: unknown =
          yamlText.trim() === "" ? {} : parseYaml(yamlText, { uniqueKeys: false, logLevel: "error" });
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
