/**
 * `.vault-ragignore` rules (gitignore syntax), matched in time linear in the path: each rule is
 * compiled to a small automaton (a Thompson NFA) and a path is read once, character by character,
 * keeping the set of states the rule can be in; each set's move on a character is worked out once
 * and kept, so a character costs one table look-up. A backtracking regular expression, which the
 * `ignore` library builds, takes time exponential in the `**` segments of a line such as
 * `**\/a/**\/a/**\/a/**\/a/**\/a/**\/a/**\/a/**\/c` on a deep folder (7 s to walk 40 folders deep,
 * 90 s with 9 segments).
 *
 * Which paths a rule matches is the `ignore` library's answer (7.0), which follows git's: a line
 * without a slash (but a trailing one) matches a name at any depth, one with a slash matches from
 * the vault's top, `*` and `?` never cross a `/`, `**` matches any number of folders, a trailing
 * `/` matches folders only, `!` re-includes, the last rule that matches decides, and nothing under
 * an ignored folder comes back. Case is ignored, as the library ignores it.
 */

const SLASH = 47;

/** What one edge of the automaton accepts: a character code (compared case-insensitively), or a class. */
type CharTest = number | typeof ANY | typeof NON_SLASH | RegExp;
const ANY = -1;
const NON_SLASH = -2;

/** A piece of a rule, in the order it is read. */
type Piece =
  | { kind: "char"; test: CharTest }
  | { kind: "star"; min: 0 | 1 } // `[^/]*` or `[^/]+`
  | { kind: "segments"; min: 0 | 1 } // `(?:/[^/]+)*` or `(?:/[^/]+)+`
  | { kind: "rest" }; // `/**` at the end: one character or more, anything

/** A token of a line: a separator, a character test, or a run of unescaped `*`. */
type Token = { sep: true } | { test: CharTest; escapedSlash?: true } | { stars: number; fills: boolean };

/** One compiled line. */
interface Rule {
  negative: boolean;
  /** It has no `/` but a trailing one: matched against a path's last name alone (the same answer, sooner). */
  basename: boolean;
  matcher: Matcher;
}

/** A compiled rule: states, their edges, and what the empty moves reach from each state. */
interface Nfa {
  edges: { test: CharTest; to: number }[][];
  /** Every state reachable from each state by empty moves, itself first. */
  closure: number[][];
  start: number[];
  accept: number;
  /** The accepting state ends the match whatever follows (a trailing `/**`). */
  acceptsRest: boolean;
}

/** The ignore rules of a vault, as {@link parseIgnoreRules} reads them. */
export interface IgnoreRules {
  /**
   * True when the rules leave out this vault-relative path (a folder's with a trailing `/`), or
   * a folder it is in.
   */
  ignores(path: string): boolean;
  /**
   * The work done so far: one step per character read, plus one per automaton edge tried when a
   * set of states meets a character for the first time. It grows linearly with the paths read.
   */
  readonly steps: number;
}

/**
 * Reads gitignore-syntax rules (the text of a `.vault-ragignore`) into a matcher whose time is
 * linear in each path it is asked about.
 *
 * @example
 * ```ts
 * const rules = parseIgnoreRules("drafts/\n*.tmp.md\n!keep.tmp.md\n");
 * rules.ignores("drafts/");         // true
 * rules.ignores("drafts/idea.md");  // true: its folder is left out
 * rules.ignores("a/b.tmp.md");      // true
 * rules.ignores("keep.tmp.md");     // false
 * ```
 */
export function parseIgnoreRules(text: string): IgnoreRules {
  const rules = readLines(text)
    .map((line, i) => compileLine(line, i === 0 && text.charCodeAt(0) === 0xfeff))
    .filter((r): r is Rule => r !== undefined);
  const cache = new Map<string, boolean>();
  // the last rule that matches decides, as in git
  const test = (path: string): boolean => {
    for (let r = rules.length - 1; r >= 0; r--) {
      const rule = rules[r];
      if (rule.matcher.matches(path, rule.basename ? basenameStart(path) : 0)) return !rule.negative;
    }
    return false;
  };

  const ignores = (path: string): boolean => {
    if (!path || rules.length === 0) return false;
    const known = cache.get(path);
    if (known !== undefined) return known;
    // a file under an ignored folder cannot be re-included (git's rule)
    const parent = parentOf(path);
    const result = (parent !== "" && ignores(parent)) || test(path);
    cache.set(path, result);
    return result;
  };

  return {
    ignores,
    get steps() {
      return rules.reduce((sum, r) => sum + r.matcher.steps, 0);
    },
  };
}

/** The lines of an ignore file: CR LF or LF, one CR at its end dropped, blank lines left out. */
function readLines(text: string): string[] {
  const body = text.endsWith("\r") ? text.slice(0, -1) : text;
  return body.split(/\r?\n/).filter(Boolean);
}

/** One line as a rule, or undefined for a comment, a blank, or a line ending in a lone `\`. */
function compileLine(line: string, bom: boolean): Rule | undefined {
  let body = bom ? line.slice(1) : line;
  if (body.startsWith("#")) return undefined;
  const negative = body.startsWith("!");
  if (negative) body = body.slice(1);
  body = trimSpaces(body);
  if (!body || trailingBackslash(body)) return undefined;
  body = body.replace(/^\\([!#])/, "$1");
  const pieces = piecesOf(body);
  const slash = body.indexOf("/");
  return {
    negative,
    basename: slash < 0 || slash === body.length - 1,
    matcher: new Matcher(pieces ? build(pieces) : NEVER),
  };
}

/** Trailing spaces go, but one a backslash quotes stays (as a space). */
function trimSpaces(body: string): string {
  let end = body.length;
  while (body[end - 1] === " ") end--;
  if (end === body.length) return body;
  let backslashes = 0;
  while (body[end - backslashes - 1] === "\\") backslashes++;
  return backslashes % 2 ? body.slice(0, end - 1) + " " : body.slice(0, end);
}

function trailingBackslash(body: string): boolean {
  let n = 0;
  while (body[body.length - n - 1] === "\\") n++;
  return n % 2 === 1;
}

/** How a line reads: whether it is anchored, its pieces, and how it ends; undefined when it can match nothing. */
interface Pieces {
  /** Matched from the top of the path (else from the start of any name in it). */
  anchored: boolean;
  pieces: Piece[];
  /** How the match ends: at the path's end only, at its end or before a trailing `/`, or anywhere (a trailing `/**`). */
  end: "exact" | "slash" | "rest";
}

/** The pieces of one line (its body), as the `ignore` library reads it. */
function piecesOf(line: string): Pieces | undefined {
  const body = /^\/\*{2,}$/.test(line) ? "**" : line;
  const tokens = tokenize(body);
  if (!tokens) return undefined;
  const isSep = (t: Token | undefined) => t !== undefined && "sep" in t;
  const isGlobstar = (k: number) => {
    const t = tokens[k];
    // two or more stars filling a segment (a `/` before it, not the escaped `\/`)
    return t !== undefined && "stars" in t && t.stars >= 2 && t.fills && (k === 0 || isSep(tokens[k - 1]));
  };
  let k = 0;
  let anchored = false;
  if (isSep(tokens[0])) {
    anchored = true;
    k = 1;
  }
  // a leading `**/` (one or more) matches at any depth
  let anyDepth = false;
  while (isGlobstar(k) && isSep(tokens[k + 1])) {
    anyDepth = true;
    k += 2;
  }
  if (anyDepth) anchored = false;
  // else a slash at the start or in the middle anchors it
  else if (!anchored) anchored = /\/(?!$)/.test(body);

  const pieces: Piece[] = [];
  // what the last piece was: a separator (`/`), or the escaped slash `\/`, or something else
  let last: "sep" | "slash" | "other" = "other";
  let end: Pieces["end"] = "slash";
  for (; k < tokens.length; k++) {
    const t = tokens[k];
    if ("sep" in t) {
      const after = tokens[k + 2];
      if (isGlobstar(k + 1) && (after === undefined || "sep" in after)) {
        if (after === undefined) {
          // a trailing `/**`: everything inside, not the folder itself
          pieces.push({ kind: "char", test: SLASH }, { kind: "rest" });
          return { anchored, pieces, end: "rest" };
        }
        // `/**/`: no folder or any; at the end (`a/**/`), at least one
        pieces.push({ kind: "segments", min: k + 3 === tokens.length ? 1 : 0 });
        k += 1;
        last = "other";
        continue;
      }
      pieces.push({ kind: "char", test: SLASH });
      last = "sep";
    } else if ("stars" in t) {
      // a trailing `*` right after a `/` needs one character (`abc/*` is not `abc/`); a run of
      // stars that is no `**` is one `*`
      const trailing = k === tokens.length - 1;
      pieces.push({ kind: "star", min: trailing && t.stars === 1 && last !== "other" ? 1 : 0 });
      last = "other";
    } else {
      pieces.push({ kind: "char", test: t.test });
      last = t.escapedSlash ? "slash" : "other";
    }
  }
  // a line ending in `/` matches a folder only (its path ends in `/`)
  if (last === "sep") end = "exact";
  return { anchored, pieces, end };
}

/** The tokens of a line, or undefined when it can match nothing (an unclosed `[`, a final `\/`). */
function tokenize(body: string): Token[] | undefined {
  const tokens: Token[] = [];
  for (let i = 0; i < body.length;) {
    const ch = body[i];
    if (ch === "\\") {
      const escaped = body[i + 1];
      if (escaped === "/" && i + 2 === body.length) return undefined;
      tokens.push(escaped === "/" ? { test: SLASH, escapedSlash: true } : { test: literal(escaped) });
      i += 2;
    } else if (ch === "[") {
      const scanned = scanBracket(body, i);
      if (!scanned) return undefined;
      tokens.push({ test: scanned.test });
      i = scanned.end + 1;
    } else if (ch === "*") {
      let n = 0;
      while (body[i + n] === "*") n++;
      // a run of two or more that fills a segment is `**`; any other run is one `*`
      const fills = (i === 0 || body[i - 1] === "/") && (i + n === body.length || body[i + n] === "/");
      tokens.push({ stars: n, fills });
      i += n;
    } else if (ch === "?") {
      tokens.push({ test: NON_SLASH });
      i++;
    } else if (ch === "/") {
      tokens.push({ sep: true });
      i++;
    } else {
      tokens.push({ test: literal(ch) });
      i++;
    }
  }
  return tokens;
}

/** POSIX classes, ASCII only as in git's wildmatch, without `/`. */
const POSIX_CLASSES: Record<string, string> = {
  alnum: "0-9A-Za-z",
  alpha: "A-Za-z",
  blank: " \\t",
  cntrl: "\\x00-\\x1f\\x7f",
  digit: "0-9",
  graph: "!-.0-~",
  lower: "a-z",
  print: " -.0-~",
  punct: "!-.:-@\\[-`{-~",
  space: " \\t\\n\\r",
  upper: "A-Z",
  xdigit: "0-9A-Fa-f",
};

const member = (ch: string) => ("\\]^-[".includes(ch) ? "\\" + ch : ch);

/**
 * The bracket expression that starts at `pattern[start]` (`[a-z]`, `[!0-9]`, `[[:alpha:]]`), as
 * git's wildmatch reads it, or undefined when it is never closed or names an unknown class (then
 * the line matches nothing). It never matches `/`.
 */
function scanBracket(pattern: string, start: number): { end: number; test: RegExp } | undefined {
  let index = start + 1;
  let negated = false;
  if (pattern[index] === "!" || pattern[index] === "^") {
    negated = true;
    index++;
  }
  let body = "";
  let prev = "";
  for (;;) {
    const ch = pattern[index];
    if (ch === undefined) return undefined;
    if (ch === "\\") {
      const escaped = pattern[++index];
      body += member(escaped);
      prev = escaped;
    } else if (ch === "-" && prev && index + 1 < pattern.length && pattern[index + 1] !== "]") {
      index++;
      let to = pattern[index];
      if (to === "\\") to = pattern[++index];
      // an out-of-order range matches nothing in git; its lower bound stays a member
      if (prev <= to) body += `-${member(to)}`;
      prev = "";
    } else if (ch === "[" && pattern[index + 1] === ":") {
      const nameStart = index + 2;
      let end = nameStart;
      while (end < pattern.length && pattern[end] !== "]") end++;
      if (end === pattern.length) return undefined;
      if (end > nameStart && pattern[end - 1] === ":") {
        const name = pattern.slice(nameStart, end - 1);
        if (!Object.hasOwn(POSIX_CLASSES, name)) return undefined;
        body += POSIX_CLASSES[name];
        prev = "";
        index = end;
      } else {
        body += member("[");
        prev = "[";
        index = nameStart - 2;
      }
    } else {
      body += member(ch);
      prev = ch;
    }
    index++;
    if (pattern[index] === "]") {
      // tested on one character at a time: linear whatever its members
      return { end: index, test: new RegExp(`^[${negated ? "^" : ""}${body}]$`, "i") };
    }
  }
}

/** A literal character's test: its code, case-folded as a case-insensitive regular expression folds it. */
function literal(ch: string): CharTest {
  return canonical(ch.charCodeAt(0));
}

const wide = new Map<number, number>();

/** A character code folded as a case-insensitive (non-Unicode) regular expression folds it. */
function canonical(c: number): number {
  if (c < 128) return c >= 97 && c <= 122 ? c - 32 : c;
  let folded = wide.get(c);
  if (folded === undefined) {
    const upper = String.fromCharCode(c).toUpperCase();
    folded = upper.length !== 1 || upper.charCodeAt(0) < 128 ? c : upper.charCodeAt(0);
    wide.set(c, folded);
  }
  return folded;
}

/** Whether an edge takes a character (`c` folded, `ch` as written). */
function accepts(test: CharTest, c: number, ch: string): boolean {
  if (typeof test === "number") {
    if (test >= 0) return test === c;
    return test === ANY || c !== SLASH;
  }
  // a class folds case itself: what it answers depends on the folded character alone
  return c !== SLASH && test.test(ch);
}

const UNKNOWN = -2;
const DEAD = -1;
/** The most sets of states a rule keeps the moves of; past it they are forgotten and found again. */
const MAX_SETS = 256;

/**
 * A rule's automaton, run on a path one character at a time. The set of states it is in after each
 * character is worked out once from the NFA (at most one step per edge) and kept with its moves,
 * so a path costs one table look-up per character: a deterministic automaton built as it is needed.
 */
class Matcher {
  /** The NFA states of each kept set, and the set's id by its states. */
  private sets: number[][] = [];
  private ids = new Map<string, number>();
  /** Each set's move on an ASCII character (UNKNOWN until worked out), and on any other. */
  private ascii: Int32Array[] = [];
  private wide: Map<number, number>[] = [];
  private accepting: boolean[] = [];
  /** The set holds the accepting state of a rule that matches whatever follows. */
  private final: boolean[] = [];
  private start = DEAD;
  steps = 0;

  constructor(private readonly nfa: Nfa) {
    this.reset();
  }

  /** True when the rule matches `path` read from `from`. */
  matches(path: string, from: number): boolean {
    let d = this.start;
    if (d === DEAD) return false;
    if (this.final[d]) return true;
    for (let i = from; i < path.length; i++) {
      const c = canonical(path.charCodeAt(i));
      let next = c < 128 ? this.ascii[d][c] : (this.wide[d].get(c) ?? UNKNOWN);
      if (next === UNKNOWN) next = this.move(d, c, path[i]);
      this.steps++;
      if (next === DEAD) return false;
      if (this.final[next]) return true;
      d = next;
    }
    return this.accepting[d];
  }

  /** The set of states a set moves to on a character, worked out from the NFA and kept. */
  private move(d: number, c: number, ch: string): number {
    const found = new Set<number>();
    for (const s of this.sets[d]) {
      for (const edge of this.nfa.edges[s]) {
        this.steps++;
        if (accepts(edge.test, c, ch)) for (const t of this.nfa.closure[edge.to]) found.add(t);
      }
    }
    const full = this.sets.length >= MAX_SETS;
    if (full) this.reset();
    const next = this.intern([...found].sort((x, y) => x - y));
    if (!full) {
      if (c < 128) this.ascii[d][c] = next;
      else this.wide[d].set(c, next);
    }
    return next;
  }

  private intern(states: number[]): number {
    if (states.length === 0) return DEAD;
    const key = states.join(",");
    const known = this.ids.get(key);
    if (known !== undefined) return known;
    const id = this.sets.length;
    this.sets.push(states);
    this.ids.set(key, id);
    this.ascii.push(new Int32Array(128).fill(UNKNOWN));
    this.wide.push(new Map());
    const accepting = states.includes(this.nfa.accept);
    this.accepting.push(accepting);
    this.final.push(accepting && this.nfa.acceptsRest);
    return id;
  }

  private reset(): void {
    this.sets = [];
    this.ids.clear();
    this.ascii = [];
    this.wide = [];
    this.accepting = [];
    this.final = [];
    this.start = this.intern([...this.nfa.start].sort((x, y) => x - y));
  }
}

/** An automaton that matches nothing. */
const NEVER: Nfa = {
  edges: [[]],
  closure: [[0]],
  start: [],
  accept: -1,
  acceptsRest: false,
};

/** The automaton of a line's pieces. */
function build({ anchored, pieces, end }: Pieces): Nfa {
  const edges: { test: CharTest; to: number }[][] = [];
  const empty: number[][] = [];
  const state = () => {
    edges.push([]);
    empty.push([]);
    return edges.length - 1;
  };
  const begin = state();
  let at = begin;
  const start = [begin];
  if (!anchored) {
    // the match starts at the top or right after any `/`
    const body = state();
    edges[begin].push({ test: ANY, to: begin }, { test: SLASH, to: body });
    start.push(body);
    at = body;
  }
  let acceptsRest = false;
  for (const piece of pieces) {
    const from = at;
    at = state();
    if (piece.kind === "char") {
      edges[from].push({ test: piece.test, to: at });
    } else if (piece.kind === "star") {
      // `[^/]+` is one character then `[^/]*`
      let loop = from;
      if (piece.min === 1) {
        loop = state();
        edges[from].push({ test: NON_SLASH, to: loop });
      }
      empty[loop].push(at);
      edges[loop].push({ test: NON_SLASH, to: loop });
    } else if (piece.kind === "segments") {
      // `(?:/[^/]+)*`: from `loop`, a `/`, one name character, more of them, and back to `loop`
      const loop = state();
      const named = state();
      const name = state();
      empty[from].push(loop);
      edges[loop].push({ test: SLASH, to: named });
      edges[named].push({ test: NON_SLASH, to: name });
      edges[name].push({ test: NON_SLASH, to: name });
      empty[name].push(loop);
      if (piece.min === 0) empty[loop].push(at);
      else empty[name].push(at);
    } else {
      edges[from].push({ test: ANY, to: at });
      acceptsRest = true;
    }
  }
  let accept = at;
  if (end === "slash") {
    // the end of the path, or a trailing `/` (a folder's path)
    accept = state();
    empty[at].push(accept);
    edges[at].push({ test: SLASH, to: accept });
  }
  const closure = empty.map((_, s) => reach(s, empty));
  return {
    edges,
    closure,
    start: [...new Set(start.flatMap((s) => closure[s]))],
    accept,
    acceptsRest: acceptsRest && end === "rest",
  };
}

/** Every state reachable from `s` by empty moves, `s` first. */
function reach(s: number, empty: number[][]): number[] {
  const out = [s];
  for (let i = 0; i < out.length; i++) for (const t of empty[out[i]]) if (!out.includes(t)) out.push(t);
  return out;
}

/** Where a path's last name starts (a folder's path keeps its trailing `/`). */
function basenameStart(path: string): number {
  const end = path.charCodeAt(path.length - 1) === SLASH ? path.length - 2 : path.length - 1;
  return path.lastIndexOf("/", end) + 1;
}

/** A path's parent folder with its trailing `/`, or "" at the top: `a/b/c` → `a/b/`, `a/b/` → `a/`. */
function parentOf(path: string): string {
  const end = path.charCodeAt(path.length - 1) === SLASH ? path.length - 2 : path.length - 1;
  const cut = path.lastIndexOf("/", end);
  return cut < 0 ? "" : path.slice(0, cut + 1);
}
