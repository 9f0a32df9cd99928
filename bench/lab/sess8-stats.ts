import { loadLab } from "./load.js";
const [name, target, vault] = process.argv.slice(2);
const lab = await loadLab(name, target, vault);
const notes = new Map<string, number>();
for (const c of lab.chunks) notes.set(c.path, (notes.get(c.path) ?? 0) + 1);
const w = lab.chunks.map((c) => c.windows.length);
const kinds: Record<string, number> = {};
for (const q of lab.queries) kinds[q.kind] = (kinds[q.kind] ?? 0) + 1;
console.log(
  name,
  "chunks",
  lab.chunks.length,
  "notes",
  notes.size,
  "max chunks/note",
  Math.max(...notes.values()),
  "multi-chunk notes",
  [...notes.values()].filter((x) => x > 1).length,
  "windows avg",
  w.reduce((a, b) => a + b, 0) / w.length,
  "max",
  Math.max(...w),
  kinds,
);
