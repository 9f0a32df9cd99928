// An exact title match bonus after fusion: a chunk whose note's title, an alias or its file name's
// stem occurs in the question as a whole phrase gets + B on its fused score, then the list is
// sorted again and namedFirst / diversify / nDCG@10 run as `evaluate` runs them (sess15-exact.ts).
// Names and the question are compared as word sequences, normalised (NFKC, lowercase, anything but
// letters and digits to a space) and, with MATCH=stem (the default), Porter-stemmed as FTS5 stems
// (MATCH=norm: unstemmed). A name counts only with at least MIN words not in the stopword list.
// SCALE=flat: + B; SCALE=cover: + B × the share of the question's non-stopword words the name
// covers. The best-matching name of a note is taken.
//
//   GRID='[[B, MIN, "flat"|"cover"], ...]' MATCH=stem npx tsx bench/lab/sess16-title.ts TARGET [VAULT]
//   DIAG=1 …: for each question, the notes among the candidates that match and whether they answer
//   SHOW='[B, MIN, "flat"|"cover"]' (or a list of them) …: per question, the first answer's note rank before → after, and
//   every question whose nDCG@10 changes
//
// Sets (run from the clone's top): til ../shared/bench/til/questions.jsonl /tmp/til (or
// /work/shared/...), SciFact /work/shared/bench/scifact-train, examples examples/questions.jsonl
// /tmp/ex, held-out test/fixtures/heldout-questions.jsonl /tmp/ex. Not shipped.
import Database from "better-sqlite3";
import { loadExact, type XQ } from "./sess15-exact.js";
import { fuse } from "../../src/search/search.js";
import { namedFirst, diversify } from "../../src/search/rank.js";
import { STOPWORDS } from "../../src/store/stopwords.js";
import type { Hit } from "../../src/search/types.js";

const [target, vault] = process.argv.slice(2);
const MATCH = process.env.MATCH ?? "stem";
const X = await loadExact(target, vault);
const base = await X.evalRun((q) => X.baseHits(q));
console.log("baseline", X.fmt(base));

// FTS5's porter tokenizer, word by word (unicode61 splits as the normalisation does)
const tok = new Database(":memory:");
tok.exec(
  "CREATE VIRTUAL TABLE t USING fts5(x, tokenize = 'porter unicode61 remove_diacritics 2'); CREATE VIRTUAL TABLE tv USING fts5vocab(t, 'instance')",
);
const ins = tok.prepare("INSERT INTO t(x) VALUES (?)");
const sel = tok.prepare("SELECT term FROM tv ORDER BY offset").pluck();
const stemCache = new Map<string, string>();
const stemWord = (w: string) => {
  let s = stemCache.get(w);
  if (s === undefined) {
    tok.exec("DELETE FROM t");
    ins.run(w);
    s = (sel.all() as string[]).join(" ") || w;
    stemCache.set(w, s);
  }
  return s;
};
const norm = (s: string) =>
  s
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
interface Words {
  raw: string[];
  key: string[];
}
const words = (s: string): Words => {
  const raw = norm(s).split(" ").filter(Boolean);
  return { raw, key: MATCH === "stem" ? raw.map(stemWord) : raw };
};
const content = (w: Words) => w.key.filter((_, i) => !STOPWORDS.has(w.raw[i]));
/** where `name` occurs in `q` as a whole word sequence: the positions it covers, or undefined */
function occurs(q: Words, name: Words): number[] | undefined {
  const n = name.key.length;
  if (!n) return undefined;
  for (let i = 0; i + n <= q.key.length; i++) {
    let ok = true;
    for (let j = 0; j < n && ok; j++) ok = q.key[i + j] === name.key[j];
    if (ok) return Array.from({ length: n }, (_, j) => i + j);
  }
  return undefined;
}
const stemOf = (p: string) => p.slice(p.lastIndexOf("/") + 1).replace(/\.md$/i, "");
const noteNames = new Map<string, Words[]>();
const namesOf = (h: Hit) => {
  let ns = noteNames.get(h.path);
  if (!ns) {
    const all = [h.meta.title, stemOf(h.path), ...((h.meta.aliases as string[] | undefined) ?? [])].filter(Boolean);
    noteNames.set(h.path, (ns = [...new Set(all)].map(words)));
  }
  return ns;
};
/** the note's best match in the question: its content-word count and the share of the question's content words it covers */
function match(q: XQ, qw: Words, h: Hit, MIN: number): { n: number; cover: number } | undefined {
  const qContent = qw.key.filter((_, i) => !STOPWORDS.has(qw.raw[i])).length;
  let best: { n: number; cover: number } | undefined;
  for (const name of namesOf(h)) {
    const n = content(name).length;
    if (n < MIN) continue;
    const at = occurs(qw, name);
    if (!at) continue;
    const covered = at.filter((i) => !STOPWORDS.has(qw.raw[i])).length;
    const cover = qContent ? covered / qContent : 0;
    if (!best || cover > best.cover) best = { n, cover };
  }
  return best;
}
const qWords = new Map<string, Words>();
const qw = (q: XQ) => {
  let w = qWords.get(q.id);
  if (!w) qWords.set(q.id, (w = words(q.text)));
  return w;
};
type Point = [number, number, string];
function run(q: XQ, [B, MIN, SCALE]: Point): Hit[] {
  const hits = fuse(X.o, q.dense, q.keyword);
  const byNote = new Map<string, number>();
  const out = hits.map((h) => {
    let bonus = byNote.get(h.path);
    if (bonus === undefined) {
      const m = match(q, qw(q), h, MIN);
      bonus = !m ? 0 : SCALE === "cover" ? B * m.cover : B;
      byNote.set(h.path, bonus);
    }
    if (!bonus) return h;
    const s = h.score + bonus;
    return { ...h, score: s, distance: 1 - s };
  });
  out.sort((x, y) => y.score - x.score || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
  return namedFirst(out, q.text);
}

if (process.env.DIAG) {
  let withMatch = 0,
    withAnswer = 0;
  for (const q of X.qs) {
    const hits = fuse(X.o, q.dense, q.keyword);
    const seen = new Map<string, { n: number; cover: number }>();
    for (const h of hits) {
      if (seen.has(h.path)) continue;
      const m = match(q, qw(q), h, 1);
      if (m) seen.set(h.path, m);
    }
    if (!seen.size) continue;
    withMatch++;
    const ans = [...seen.keys()].some((p) => q.relevant.has(p));
    if (ans) withAnswer++;
    console.log(
      q.id,
      q.kind,
      JSON.stringify(q.text),
      [...seen].map(([p, m]) => `${q.relevant.has(p) ? "*" : ""}${p}(${m.n},${m.cover.toFixed(2)})`).join(" "),
    );
  }
  console.log(`questions with a matching note ${withMatch} of ${X.qs.length}; with a matching answer ${withAnswer}`);
}

const grid: Point[] = JSON.parse(process.env.GRID ?? "[]");
for (const p of grid) console.log("point", JSON.stringify(p), MATCH, X.fmt(await X.evalRun((q) => run(q, p))));

const shows: Point[] = process.env.SHOW ? JSON.parse(process.env.SHOW) : [];
for (const p of Array.isArray(shows[0]) ? shows : [shows as unknown as Point].filter((x) => x.length)) {
  const r = await X.evalRun((q) => run(q, p));
  console.log("show", JSON.stringify(p), MATCH, X.fmt(r));
  const firstAnswer = (hits: Hit[], q: XQ) => {
    const ranked = diversify(hits, 100, 1).map((h) => h.path);
    const i = ranked.findIndex((x) => q.relevant.has(x));
    return i < 0 ? "-" : String(i + 1);
  };
  let up = 0,
    down = 0;
  X.qs.forEach((q, i) => {
    const d = r.per[i] - base.per[i];
    if (Math.abs(d) < 1e-9) return;
    if (d > 0) up++;
    else down++;
    console.log(
      "moved",
      q.id,
      q.kind,
      `first answer ${firstAnswer(X.baseHits(q), q)} → ${firstAnswer(run(q, p), q)}`,
      `nDCG ${base.per[i].toFixed(3)} → ${r.per[i].toFixed(3)}`,
      JSON.stringify(q.text),
    );
  });
  console.log(`up ${up} down ${down}`);
}
