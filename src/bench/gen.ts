import fs from "node:fs";
import path from "node:path";

const WORDS = "motor driver battery sensor robot chassis bread flour starter garden tomato compost wifi sleep power voltage current servo gearbox wiring solder kitchen travel meeting release latency pico esp32 track wheel camera".split(" ");

/** A deterministic pseudo-random generator (Park–Miller). */
export function rng(seed = 1): () => number {
  let s = seed;
  return () => {
    s = (s * 16807) % 2147483647;
    return s / 2147483647;
  };
}

/** Writes a generated vault of `n` notes (3 sections each) under `dir`. */
export function generateVault(dir: string, n: number, seed = 7): void {
  const r = rng(seed);
  const word = () => WORDS[Math.floor(r() * WORDS.length)];
  const sentence = (k: number) => Array.from({ length: k }, word).join(" ") + ".";
  fs.mkdirSync(dir, { recursive: true });
  for (let i = 0; i < n; i++) {
    const folder = `f${i % 20}/sub${i % 3}`;
    fs.mkdirSync(path.join(dir, folder), { recursive: true });
    const body = [`---\ntags: [t${i % 10}, ${word()}]\n---`, `# Note ${i}`, sentence(20), `## ${word()}`, sentence(30) + " " + sentence(15), `## ${word()} #tag${i % 7}`, sentence(25)].join("\n\n");
    fs.writeFileSync(path.join(dir, folder, `note ${i}.md`), body + "\n");
  }
}
