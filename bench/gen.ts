import fs from "node:fs";
import path from "node:path";

const WORDS =
  "motor driver battery sensor robot chassis bread flour starter garden tomato compost wifi sleep power voltage current servo gearbox wiring solder kitchen travel meeting release latency pico esp32 track wheel camera".split(
    " ",
  );

/** A deterministic pseudo-random generator (Park–Miller). */
export function rng(seed = 1): () => number {
  let s = seed;
  return () => {
    s = (s * 16807) % 2147483647;
    return s / 2147483647;
  };
}

/**
 * A vocabulary of 4,000 words sampled with Zipf's law (frequency ∝ 1/rank), as words are in real
 * text; the topical words sit at spread-out ranks, so a query word matches a realistic share of
 * notes instead of all of them.
 */
function zipfSampler(r: () => number): () => string {
  const syll = ["ka", "lo", "mi", "ter", "on", "ra", "ve", "sul", "pe", "dor", "an", "is", "tu", "gra", "ne", "bo"];
  const vocab: string[] = [];
  for (let i = 0; vocab.length < 4000; i++) {
    const w = syll[i % 16] + syll[Math.floor(i / 16) % 16] + (i >= 256 ? syll[Math.floor(i / 256) % 16] : "");
    vocab.push(w);
  }
  WORDS.forEach((w, i) => (vocab[20 + i * 37] = w));
  const cdf: number[] = [];
  let acc = 0;
  for (let i = 0; i < vocab.length; i++) cdf.push((acc += 1 / (i + 1)));
  return () => {
    const x = r() * acc;
    let lo = 0;
    let hi = cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return vocab[lo];
  };
}

/** Writes a generated vault of `n` notes (3 sections each; every other one links to another) under `dir`. */
export function generateVault(dir: string, n: number, seed = 7): void {
  const r = rng(seed);
  const word = zipfSampler(r);
  const sentence = (k: number) => Array.from({ length: k }, word).join(" ") + ".";
  fs.mkdirSync(dir, { recursive: true });
  for (let i = 0; i < n; i++) {
    const folder = `f${i % 20}/sub${i % 3}`;
    fs.mkdirSync(path.join(dir, folder), { recursive: true });
    const body = [
      `---\ntags: [t${i % 10}, ${word()}]\n---`,
      `# Note ${i}`,
      sentence(20),
      `## ${word()}`,
      sentence(30) + " " + sentence(15),
      `## ${word()} #tag${i % 7}`,
      // every other note links to another in its last sentence, as notes do (backlink text); the
      // sentence stays 25 words long either way
      i % 2 ? `${sentence(12).slice(0, -1)} [[note ${Math.floor(r() * n)}]] ${sentence(11)}` : sentence(25),
    ].join("\n\n");
    fs.writeFileSync(path.join(dir, folder, `note ${i}.md`), body + "\n");
  }
}
