// A linear adapter learned from the vault itself: each note's title is a question its body
// answers (the title–body pairs of Chang et al. 2020's pre-training tasks), so a ridge regression
// from title vectors to body vectors, shrunk toward the identity, is a map from "how a question is
// put" to "how the answer reads". The question's vector is mapped before the dense search
// (SIDE=q), or every passage is mapped to title space (SIDE=p). Not shipped.
// npx tsx bench/lab/sess17-adapter.ts til ../shared/bench/til/questions.jsonl /tmp/til
// GRID='[[lambda, mix]]': W = (TᵀT + λn I)⁻¹ (TᵀB + λn I), vector' = unit(v + mix·(vW − v))
import { loadLab, dot, unit, titleVectors } from "./load.js";
import { baseline, fuseLinear, notesOf, type Scored } from "./score.js";

const [name, target, vault] = process.argv.slice(2);
const lab = await loadLab(name, target, vault);
const { show } = baseline(lab);
const tvec = await titleVectors(lab);
const d = lab.dims;

// pairs: a note's title vector and its body's vector (mean of its chunks' pooled vectors)
const byNote = new Map<string, { title: string; sum: Float32Array }>();
for (const c of lab.chunks) {
  const e = byNote.get(c.path) ?? { title: c.title, sum: new Float32Array(d) };
  for (let k = 0; k < d; k++) e.sum[k] += c.vec[k];
  byNote.set(c.path, e);
}
const T: Float32Array[] = [],
  B: Float32Array[] = [];
for (const { title, sum } of byNote.values()) {
  if (!title.trim()) continue;
  T.push(tvec.get(title)!);
  B.push(unit(sum));
}
const n = T.length;
console.log(lab.name, `pairs ${n}, dims ${d}`);

function gram(X: Float32Array[], Y: Float32Array[]): Float64Array {
  const G = new Float64Array(d * d);
  for (let r = 0; r < X.length; r++) {
    const x = X[r],
      y = Y[r];
    for (let i = 0; i < d; i++) {
      const xi = x[i];
      if (xi === 0) continue;
      const row = i * d;
      for (let j = 0; j < d; j++) G[row + j] += xi * y[j];
    }
  }
  return G;
}
/** Solves A X = C for X (A symmetric positive definite, d×d; C d×d), by Cholesky. */
function solve(A: Float64Array, C: Float64Array): Float64Array {
  const L = new Float64Array(d * d);
  for (let i = 0; i < d; i++)
    for (let j = 0; j <= i; j++) {
      let s = A[i * d + j];
      for (let k = 0; k < j; k++) s -= L[i * d + k] * L[j * d + k];
      L[i * d + j] = i === j ? Math.sqrt(s) : s / L[j * d + j];
    }
  const X = new Float64Array(d * d);
  const y = new Float64Array(d);
  for (let col = 0; col < d; col++) {
    for (let i = 0; i < d; i++) {
      let s = C[i * d + col];
      for (let k = 0; k < i; k++) s -= L[i * d + k] * y[k];
      y[i] = s / L[i * d + i];
    }
    for (let i = d - 1; i >= 0; i--) {
      let s = y[i];
      for (let k = i + 1; k < d; k++) s -= L[k * d + i] * X[k * d + col];
      X[i * d + col] = s / L[i * d + i];
    }
  }
  return X;
}
function apply(v: Float32Array, W: Float64Array, mix: number): Float32Array {
  const out = new Float32Array(d);
  for (let i = 0; i < d; i++) {
    const vi = v[i];
    if (vi === 0) continue;
    const row = i * d;
    for (let j = 0; j < d; j++) out[j] += vi * W[row + j];
  }
  for (let j = 0; j < d; j++) out[j] = v[j] + mix * (out[j] - v[j]);
  return unit(out);
}

const side = process.env.SIDE ?? "q";
const TT = side === "q" ? gram(T, T) : gram(B, B);
const TB = side === "q" ? gram(T, B) : gram(B, T);
const alpha = Number(process.env.ALPHA ?? 0.65);
for (const [lambda, mix] of JSON.parse(process.env.GRID ?? "[[0.1,1],[0.3,1],[1,1],[0.1,0.5],[1,0.5]]") as number[][]) {
  const A = TT.slice(),
    C = TB.slice();
  for (let i = 0; i < d; i++) {
    A[i * d + i] += lambda * n;
    C[i * d + i] += lambda * n;
  }
  const W = solve(A, C);
  const pv = side === "p" ? lab.chunks.map((c) => apply(c.vec, W, mix)) : undefined;
  const denseOf = (q: (typeof lab.queries)[number]): Scored => {
    const qv = side === "q" ? apply(q.vec, W, mix) : q.vec;
    const out: Scored = [];
    lab.chunks.forEach((c, i) => {
      if (q.allowed(i)) out.push({ i, s: dot(qv, pv ? pv[i] : c.vec) });
    });
    out.sort((a, b) => b.s - a.s);
    return out.slice(0, 300);
  };
  const lists = new Map(lab.queries.map((q) => [q.id, denseOf(q)]));
  show(`${side} λ ${lambda} mix ${mix} dense`, (q) => notesOf(lab, lists.get(q.id)!));
  show(`${side} λ ${lambda} mix ${mix} hybrid`, (q) =>
    notesOf(lab, fuseLinear([lists.get(q.id)!, q.kws], [1 - alpha, alpha])),
  );
}
