import { scoreRanking } from "../../src/search/eval.js";
import { denseList, type Lab, type LabQuery } from "./load.js";

export type Scored = { i: number; s: number }[];

/** min-max linear fusion of lists (indices into lab.chunks), weights per list. */
export function fuseLinear(lists: Scored[], weights: number[]): Scored {
  const m = new Map<number, number>();
  lists.forEach((l, li) => {
    if (!l.length) return;
    let min = Infinity,
      max = -Infinity;
    for (const r of l) {
      min = Math.min(min, r.s);
      max = Math.max(max, r.s);
    }
    for (const r of l) m.set(r.i, (m.get(r.i) ?? 0) + weights[li] * (max > min ? (r.s - min) / (max - min) : 1));
  });
  return [...m].map(([i, s]) => ({ i, s })).sort((a, b) => b.s - a.s || a.i - b.i);
}

/** Ranked note paths (first occurrence) from a chunk ranking. */
export function notesOf(lab: Lab, l: Scored): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const r of l) {
    const p = lab.chunks[r.i].path;
    if (!seen.has(p)) {
      seen.add(p);
      out.push(p);
    }
    if (out.length >= 100) break;
  }
  return out;
}

export interface Report {
  all: number;
  byKind: Record<string, number>;
  per: number[];
}

export function evaluateRun(lab: Lab, run: (q: LabQuery) => string[]): Report {
  const per: number[] = [];
  const kinds: Record<string, number[]> = {};
  for (const q of lab.queries) {
    const s = scoreRanking(run(q), q.relevant).ndcg10;
    per.push(s);
    (kinds[q.kind] ??= []).push(s);
  }
  const avg = (a: number[]) => a.reduce((x, y) => x + y, 0) / (a.length || 1);
  return {
    all: avg(per),
    byKind: Object.fromEntries(Object.entries(kinds).map(([k, v]) => [k, avg(v)])),
    per,
  };
}

export function fmt(r: Report): string {
  return (
    r.all.toFixed(4) +
    "  " +
    Object.entries(r.byKind)
      .map(([k, v]) => `${k}:${v.toFixed(3)}`)
      .join(" ")
  );
}

/**
 * Today's hybrid on a lab, to build ideas on: each question's dense list (computed once), the
 * default fusion of it with the search's keyword list (`kws`) at `alpha`, and a printer of a run.
 */
export function baseline(lab: Lab, alpha = 0.65) {
  const dense = new Map(lab.queries.map((q) => [q.id, denseList(lab, q)]));
  const base = (q: LabQuery) => fuseLinear([dense.get(q.id)!, q.kws], [1 - alpha, alpha]);
  const show = (label: string, run: (q: LabQuery) => string[]) =>
    console.log(lab.name, label.padEnd(34), fmt(evaluateRun(lab, run)));
  const sortS = (l: Scored) => l.sort((a, b) => b.s - a.s || a.i - b.i);
  show("baseline", (q) => notesOf(lab, base(q)));
  return { dense, base, show, sortS };
}
