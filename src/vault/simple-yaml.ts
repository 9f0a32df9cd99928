/**
 * The frontmatter most notes have, read without the YAML library: lines of `key: value`, each
 * value a plain word-like scalar (`draft`, `lora 1781`, `project/anka-0`), an ISO date
 * (`2015-04-26`) or a one-line flow list of such scalars (`[a, b/c-1]`). Anything else (another
 * shape, a second use of a key, a value YAML would read as `true`, `null` or a number, a comment,
 * a quote, an indent) is `undefined`, for the library to read. What it returns is what the
 * library's `parse` returns for the same text (YAML 1.2 core schema, where a date is a string).
 *
 * Measured on the generated vault (`bench/gen.ts`), whose every frontmatter it reads: reading and
 * chunking 100,000 notes 18.5 → 14.0 s of CPU, the keyword phase at 10,000 notes 6.1 → 5.2 s
 * (medians of interleaved runs, load 2–3.4).
 *
 * @example
 * ```ts
 * simpleYaml("tags: [a, b/c]\ncreated: 2015-04-26\n"); // { tags: ["a", "b/c"], created: "2015-04-26" }
 * simpleYaml("draft: true\n"); // undefined: YAML reads a boolean
 * ```
 */
export function simpleYaml(yaml: string): Record<string, unknown> | undefined {
  const data: Record<string, unknown> = {};
  const lines = yaml.split("\n");
  // the text ends with its last line's "\n"
  if (lines.pop() !== "") return undefined;
  for (const line of lines) {
    const m = LINE.exec(line);
    if (!m) return undefined;
    const [, key, value] = m;
    // (`in`: nor a name every object has, such as `constructor`)
    if (key in data || RESERVED.test(key)) return undefined;
    if (value.startsWith("[")) {
      const inner = value.slice(1, -1);
      const items = inner ? inner.split(", ") : [];
      if (!items.every(isWord)) return undefined;
      data[key] = items;
    } else if (isWord(value) || DATE.test(value)) data[key] = value;
    else return undefined;
  }
  return data;
}

/** `key: value`, a key of up to 64 letters, digits, `_` and `-` from a letter, and a value of no `:`, `#`, quotes or braces. */
const LINE = /^([A-Za-z][A-Za-z0-9_-]{0,63}): (\[[A-Za-z0-9_/., -]*\]|[A-Za-z0-9_/. -]+)$/;
/** A plain scalar YAML reads as a string: words from a letter, one space between them, no `,`, `:` or `#`. */
const WORD = /^[A-Za-z][A-Za-z0-9_/.-]*(?: [A-Za-z0-9_/.-]+)*$/;
/** The words YAML 1.2's core schema reads as `null` or a boolean. */
const RESERVED = /^(?:[Nn]ull|NULL|[Tt]rue|TRUE|[Ff]alse|FALSE)$/;
const DATE = /^\d{4}-\d\d-\d\d$/;

const isWord = (s: string) => WORD.test(s) && !RESERVED.test(s);
