import type { Hit } from "../search/index.js";
import type { Source } from "../shared/api.js";

export type { Source } from "../shared/api.js";

/** Context options; defaults in {@link CONTEXT_DEFAULTS}. */
export interface ContextOptions {
  /** Largest prompt, in estimated tokens (about 1.3 per word), sources and question included. */
  budgetTokens?: number;
}

export type ContextOptionsWithDefaults = Required<ContextOptions>;

/** Defaults: 3,000 tokens fits every local model's context with room for the answer. */
export const CONTEXT_DEFAULTS: ContextOptionsWithDefaults = { budgetTokens: 3000 };

/**
 * Fills in defaults: an option given as `undefined` (a CLI flag not set) takes its default too.
 *
 * @example
 * ```ts
 * withContextDefaults({ budgetTokens: undefined }).budgetTokens; // 3000
 * ```
 */
export function withContextDefaults(options: ContextOptions = {}): ContextOptionsWithDefaults {
  return { budgetTokens: options.budgetTokens ?? CONTEXT_DEFAULTS.budgetTokens };
}

/** The prompt budgets a caller may ask for, in estimated tokens: the CLI's --budget and the API's `budget`. */
export const BUDGET_RANGE = { min: 100, max: 100_000 } as const;

/** The instructions every answer gets. */
export const SYSTEM_PROMPT = [
  "You answer questions using only the numbered sources from the user's notes below.",
  "Cite every statement with the number of its source in square brackets, like [1] or [2][3].",
  "Use only the source numbers given. Do not use outside knowledge.",
  "If the sources do not contain the answer, say that the notes do not contain it.",
].join(" ");

/** Estimated tokens of a text: 1.3 per word, as local models' tokenizers average on English notes. */
export function estimateTokens(text: string): number {
  return Math.ceil((text.match(/\S+/g)?.length ?? 0) * 1.3);
}

// a heading line, and a link or embed with its text (`[[Note]]`, `![[photo.png]]`, `[text](url)`)
const HEADING_LINE = /^ {0,3}#{1,6}(?:[ \t].*)?$/gm;
const LINK = /!?\[\[[^\]\n]*\]\]|!?\[[^\]\n]*\]\([^)\n]*\)/g;

/**
 * Whether a passage holds words an answer can come from: a letter or digit outside its headings,
 * links and embeds. A passage of headings alone (what a section of only an embedded picture, a
 * Dataview query or a Templater tag keeps) or a list of links (`## Backlinks`) holds none.
 *
 * @example
 * ```ts
 * holdsProse("## Backlinks\n- [[Stoicism]]\n- [[Epictetus]]\n"); // false
 * holdsProse("## Control\nSome things are up to us.\n");          // true
 * ```
 */
export function holdsProse(text: string): boolean {
  return /[\p{L}\p{N}]/u.test(text.replace(HEADING_LINE, "").replace(LINK, ""));
}

/**
 * Turns ranked hits into numbered sources within a token budget: passages that hold no prose
 * ({@link holdsProse}) are left out, adjacent chunks of one note are
 * merged (their overlap written once, the source named for all of them: `Pico W > Power saving ·
 * Pins`), the weakest sources are dropped first when over budget, and
 * no source is ever cut (so `tokens`, the prompt's estimate, is over the budget when the best source
 * alone is).
 *
 * @example
 * ```ts
 * const { sources, prompt } = assembleContext("how do the motors work?", hits);
 * sources[0]; // { n: 1, label: "SMARS Robot > SMARS > Motors", path: "robots/SMARS.md", ... }
 * ```
 */
export function assembleContext(
  question: string,
  hits: Hit[],
  options: ContextOptions = {},
): { sources: Source[]; prompt: string; system: string; dropped: number; tokens: number } {
  // not `{ ...CONTEXT_DEFAULTS, ...options }`: an ask without --budget passes `budgetTokens:
  // undefined`, which would overwrite the default, so that no source is ever dropped
  const o = withContextDefaults(options);
  // merge chunks of one note whose ordinals are adjacent, keeping the rank of the best one
  const groups: Hit[][] = [];
  for (const h of hits) {
    if (!holdsProse(h.text)) continue;
    const g = groups.find(
      // passages of one PDF page only: a source is cited by one page
      (grp) =>
        grp[0].path === h.path &&
        (grp[0].meta.page ?? 0) === (h.meta.page ?? 0) &&
        grp.some((x) => Math.abs(x.meta.ordinal - h.meta.ordinal) === 1),
    );
    if (g) g.push(h);
    else groups.push([h]);
  }
  let merged = groups.map((g) => {
    const parts = [...g].sort((a, b) => a.meta.ordinal - b.meta.ordinal);
    let text = parts[0].text;
    for (const p of parts.slice(1)) text = joinOverlapping(text, p.text);
    const first = parts[0];
    // one source of several passages is named for all of them, in order, as a merged section is
    const span = parts.length > 1 ? spanLabel(parts.map((p) => p.section)) : undefined;
    return {
      label: span ?? g[0].label,
      title: first.title,
      section: span ?? g[0].section,
      path: first.path,
      start_line: first.meta.start_line,
      end_line: parts[parts.length - 1].meta.end_line,
      text,
      ...(first.meta.page ? { page: first.meta.page } : {}),
    };
  });
  const cost = (list: typeof merged) =>
    estimateTokens(SYSTEM_PROMPT) +
    estimateTokens(question) +
    list.reduce((s, m) => s + estimateTokens(m.text) + 12, 0);
  let dropped = 0;
  while (merged.length > 1 && cost(merged) > o.budgetTokens) {
    merged = merged.slice(0, -1);
    dropped++;
  }
  const sources: Source[] = merged.map((m, i) => ({ n: i + 1, ...m }));
  const blocks = sources.map((s) => `[${s.n}] ${s.label} — ${s.path}\n${s.text.trim()}`);
  const prompt = `Sources:\n\n${blocks.join("\n\n")}\n\nQuestion: ${question}`;
  // over the budget only when the best source alone is: it is given whole, and the caller says so
  return { sources, prompt, system: SYSTEM_PROMPT, dropped, tokens: cost(merged) };
}

/**
 * The breadcrumb of consecutive passages of one note, in note order, naming no heading above
 * another it is not under: siblings as one place (`Pico W > Power saving`, `Pico W > Pins` →
 * `Pico W > Power saving · Pins`), an intro and the sections below it as those sections under it
 * (`Pico W` then `Pico W > Power saving` → `Pico W > Power saving`), deeper ones by the first (it
 * holds them), and any other run by where it starts and ends (`T > A > A1 … T > B`).
 */
function spanLabel(sections: string[]): string {
  const distinct = sections.filter((s, i) => s !== sections[i - 1]);
  if (distinct.length === 1) return distinct[0];
  const first = distinct[0];
  const parentOf = (s: string) => (s.includes(" > ") ? s.slice(0, s.lastIndexOf(" > ")) : "");
  const parent = parentOf(first);
  if (parent && distinct.every((s) => parentOf(s) === parent))
    return `${parent} > ${distinct.map((s) => s.slice(parent.length + 3)).join(" · ")}`;
  // an intro and the sections below it: those sections, under it (`Pico W > Power saving · Pins`)
  const below = distinct.slice(1);
  if (below.every((s) => parentOf(s) === first))
    return `${first} > ${below.map((s) => s.slice(first.length + 3)).join(" · ")}`;
  if (below.every((s) => s.startsWith(`${first} > `))) return first;
  return `${first} … ${distinct[distinct.length - 1]}`;
}

/** Joins two consecutive chunks, writing the overlap (up to 40 words) once. */
function joinOverlapping(a: string, b: string): string {
  const aw = a.split(/\s+/);
  const bw = b.split(/\s+/);
  for (let n = Math.min(40, aw.length, bw.length); n > 0; n--) {
    if (aw.slice(-n).join(" ") === bw.slice(0, n).join(" ")) return `${a}\n${bw.slice(n).join(" ")}`;
  }
  return `${a}\n\n${b}`;
}

/**
 * The citations in an answer: the valid source numbers in order of first use, and the numbers that
 * name no source (flagged, never silently dropped).
 *
 * @example
 * ```ts
 * checkCitations("Two motors [1][3], see [7].", 5); // { cited: [1, 3], invalid: [7] }
 * ```
 */
export function checkCitations(answer: string, sourceCount: number): { cited: number[]; invalid: number[] } {
  const cited: number[] = [];
  const invalid: number[] = [];
  for (const m of answer.matchAll(/\[(\d+(?:\s*,\s*\d+)*)\]/g)) {
    for (const part of m[1].split(",")) {
      const n = Number(part.trim());
      const list = n >= 1 && n <= sourceCount ? cited : invalid;
      if (!list.includes(n)) list.push(n);
    }
  }
  return { cited, invalid };
}

/** `obsidian://open` link for a note. */
export function obsidianLink(vaultName: string, notePath: string): string {
  return `obsidian://open?vault=${encodeURIComponent(vaultName)}&file=${encodeURIComponent(notePath.replace(/\.md$/, ""))}`;
}
