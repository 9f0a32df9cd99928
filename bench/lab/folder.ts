// Folder (cluster) evidence: a note's folder as a document of its own, ranked for the question.
import Database from "better-sqlite3";
import { loadLab, denseList } from "./load.js";
import { evaluateRun, fmt, fuseLinear, notesOf, type Scored } from "./score.js";
import { toFtsQuery } from "../../src/store/index.js";

const [name, target, vault] = process.argv.slice(2);
const lab = await loadLab(name, target, vault);
const mem = new Database(":memory:");
mem.exec("CREATE VIRTUAL TABLE f USING fts5(name, body, tokenize = 'porter unicode61 remove_diacritics 2')");
const folders = [...new Set(lab.chunks.map((c) => c.folder))];
const sizes = new Map<string, number>();
for (const c of lab.chunks) sizes.set(c.folder, (sizes.get(c.folder) ?? 0) + 1);
const ins = mem.prepare("INSERT INTO f (rowid, name, body) VALUES (?, ?, ?)");
folders.forEach((f, i) =>
  ins.run(
    i + 1,
    f.replace(/[-_/]/g, " "),
    lab.chunks
      .filter((c) => c.folder === f)
      .map((c) => `${c.title} ${c.section} ${c.text}`)
      .join("\n"),
  ),
);
const q = mem.prepare("SELECT rowid AS r, -bm25(f, 2, 1) AS s FROM f WHERE f MATCH ?");
function folderScores(text: string): Map<string, number> {
  const m = toFtsQuery(text);
  const out = new Map<string, number>();
  if (!m) return out;
  const rows = q.all(m) as { r: number; s: number }[];
  const max = Math.max(...rows.map((r) => r.s), 1e-9);
  for (const r of rows) out.set(folders[r.r - 1], r.s / max);
  return out;
}
function aggScores(kw: Scored, pow: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of kw) {
    const f = lab.chunks[r.i].folder;
    out.set(f, (out.get(f) ?? 0) + r.s);
  }
  for (const [f, v] of out) out.set(f, v / Math.pow(sizes.get(f)!, pow));
  const max = Math.max(...out.values(), 1e-9);
  for (const [f, v] of out) out.set(f, v / max);
  return out;
}
const mode = process.env.MODE ?? "doc";
for (const beta of [0, 0.05, 0.1, 0.15, 0.2, 0.3]) {
  const r = evaluateRun(lab, (qq) => {
    const fused = fuseLinear([denseList(lab, qq), qq.kwx], [0.35, 0.65]);
    const fsc = mode === "doc" ? folderScores(qq.text) : aggScores(qq.kwx, Number(mode));
    return notesOf(
      lab,
      fused
        .map((x) => ({ i: x.i, s: x.s + beta * (fsc.get(lab.chunks[x.i].folder) ?? 0) }))
        .sort((a, b) => b.s - a.s || a.i - b.i),
    );
  });
  console.log(mode, "β", beta, fmt(r));
}
