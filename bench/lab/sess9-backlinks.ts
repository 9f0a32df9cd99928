// Backlink text (issue 15 item 4): the words other notes use where they link to a note — the link's
// display text and the sentence around it — as a field of the linked note, scored by its own BM25
// and added at weight W to every chunk of that note. Not shipped.
// GRID='[0.1,0.2,0.4]' MODE=sentence|display
import Database from "better-sqlite3";
import path from "node:path";
import { loadLab, denseList } from "./load.js";
import { evaluateRun, fmt, fuseLinear, notesOf, type Scored } from "./score.js";
import { toFtsQuery } from "../../src/store/sqlite/fts-query.js";
import { linkTargets } from "../../src/vault/index.js";

const [name, target, vault] = process.argv.slice(2);
const lab = await loadLab(name, target, vault);
const MODE = process.env.MODE ?? "sentence";
const paths = [...new Set(lab.chunks.map((c) => c.path))];
const pathSet = new Set(paths);

// link occurrences in chunk text: [display](href.md) and [[target|display]]
const LINK = /\[([^\]\n]*)\]\(([^)\s]+\.md)(?:#[^)]*)?\)|\[\[([^\]|#\n]+)(?:#[^\]|\n]*)?(?:\|([^\]\n]*))?\]\]/g;
const texts = new Map<string, string[]>();
let occurrences = 0;
for (const c of lab.chunks) {
  if (!c.text.includes("[")) continue;
  const folder = path.posix.dirname(c.path) === "." ? "" : path.posix.dirname(c.path);
  for (const m of c.text.matchAll(LINK)) {
    let to: string | undefined;
    let display: string;
    if (m[2]) {
      const href = decodeURIComponent(m[2]);
      const joined = path.posix.normalize(href.startsWith("/") ? href.slice(1) : path.posix.join(folder, href));
      to = pathSet.has(joined)
        ? joined
        : pathSet.has(path.posix.normalize(href))
          ? path.posix.normalize(href)
          : undefined;
      display = m[1];
    } else {
      to = linkTargets(paths, m[3])[0];
      display = m[4] ?? m[3];
    }
    if (!to || to === c.path) continue;
    occurrences++;
    let words = display;
    if (MODE === "sentence") {
      const at = m.index!;
      const before = c.text.slice(0, at);
      const start = Math.max(before.lastIndexOf(". "), before.lastIndexOf("\n\n"), before.lastIndexOf("\n#")) + 1;
      const afterText = c.text.slice(at + m[0].length);
      const endRel = afterText.search(/\.\s|\n\n/);
      const sentence = c.text.slice(start, at + m[0].length + (endRel < 0 ? afterText.length : endRel));
      words = sentence.replace(LINK, (_x, d1, _h, t, d2) => d1 ?? d2 ?? t);
    }
    (texts.get(to) ?? texts.set(to, []).get(to)!).push(words);
  }
}
console.log(name, `link occurrences ${occurrences}, notes with backlink text ${texts.size}`);
const mem = new Database(":memory:");
mem.exec("CREATE VIRTUAL TABLE bl USING fts5(path UNINDEXED, text, tokenize = 'porter unicode61 remove_diacritics 2')");
const ins = mem.prepare("INSERT INTO bl(path, text) VALUES (?, ?)");
for (const [p, t] of texts) ins.run(p, t.join("\n"));
const q1 = mem.prepare("SELECT path, -bm25(bl) AS s FROM bl WHERE bl MATCH ?");
const chunksOf = new Map<string, number[]>();
lab.chunks.forEach((c, i) => (chunksOf.get(c.path) ?? chunksOf.set(c.path, []).get(c.path)!).push(i));

const dense = new Map(lab.queries.map((q) => [q.id, denseList(lab, q)]));
const grid: number[] = JSON.parse(process.env.GRID ?? "[0,0.1,0.2,0.4,0.8]");
let touched = 0;
for (const W of grid) {
  touched = 0;
  const kwOf = (q: (typeof lab.queries)[number]): Scored => {
    const m = new Map<number, number>();
    for (const x of q.kws) m.set(x.i, x.s);
    const match = toFtsQuery(q.text);
    if (W && match) {
      const rows = q1.all(match) as { path: string; s: number }[];
      if (rows.length) touched++;
      for (const r of rows)
        for (const i of chunksOf.get(r.path) ?? []) if (q.allowed(i)) m.set(i, (m.get(i) ?? 0) + W * r.s);
    }
    return [...m]
      .map(([i, s]) => ({ i, s }))
      .sort((a, b) => b.s - a.s || a.i - b.i)
      .slice(0, 300);
  };
  const kw = evaluateRun(lab, (q) => notesOf(lab, kwOf(q)));
  const hy = evaluateRun(lab, (q) => notesOf(lab, fuseLinear([dense.get(q.id)!, kwOf(q)], [0.35, 0.65])));
  console.log(name, MODE, `W ${W}`, `questions touched ${touched}`, "\n   kw", fmt(kw), "\n   hybrid", fmt(hy));
}
