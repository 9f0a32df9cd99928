import fs from "node:fs";
import path from "node:path";
import { expectedTinyScore } from "../embed/tiny-bert.js";

/**
 * A vault of five one-passage notes, each titled by its file name and written in words of the tiny
 * cross-encoder's vocabulary, so its scores can be worked out by hand ({@link expectedTinyScore}).
 * `wheel.md` says "robots motor": the keyword index (stemmed) and the embedding model rank it second
 * for "robot motors"; the tiny cross-encoder, which reads whole words, scores it 0.
 */
export const RERANK_NOTES: Record<string, string> = {
  "wheel.md": "robots motor robots motor robots motor and the robots motor",
  "robot.md": "robot motors robot motors",
  "power.md": "save power with sleep on the robot when the battery is on",
  "kitchen.md": "bread flour water oven bake",
  "garden.md": "robot motors in the garden with a tomato seed and water for the garden",
};

/** Writes {@link RERANK_NOTES} into `dir`. */
export function writeRerankVault(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(RERANK_NOTES)) fs.writeFileSync(path.join(dir, file), `${text}\n`);
}

/**
 * The order the tiny cross-encoder gives hits (each `{path, label, text}`): by the score of the text
 * a reranker reads (the breadcrumb, a line break, the passage), ties in their given order.
 */
export function tinyRerankOrder(query: string, hits: { path: string; label: string; text: string }[]): string[] {
  return hits
    .map((h, i) => ({ path: h.path, i, score: expectedTinyScore(query, `${h.label} ${h.text}`) }))
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .map((h) => h.path);
}
