/** The words of indexing's phases as `status` shows them (see `IndexPhases` in the core). */

import type { IndexPhases } from "../shared/api.js";
import { num } from "./numbers.js";

/**
 * A duration left, in round words.
 *
 * @example
 * ```ts
 * timeLeft(95); // "about 2 min left"
 * ```
 */
export function timeLeft(seconds: number): string {
  if (seconds < 60) return `about ${Math.max(1, Math.round(seconds))} s left`;
  if (seconds < 5400) return `about ${Math.round(seconds / 60)} min left`;
  return `about ${Math.round(seconds / 360) / 10} h left`;
}

/**
 * One line for both phases; `stopped` names the command that finishes them (`how`).
 *
 * @example
 * ```ts
 * phasesLine({ keyword: "complete", dense: { state: "in progress", passages: 700, of: 2064, windows: { done: 2140, total: 6321 }, secondsLeft: 95 } }, "vault-rag index");
 * // "keyword: complete · dense: 33% (700/2,064 passages), about 2 min left · the most recently changed notes first"
 * ```
 */
export function phasesLine(p: IndexPhases, how: string): string {
  const keyword = p.keyword === "stopped" ? `keyword: stopped — run \`${how}\` to finish` : `keyword: ${p.keyword}`;
  const d = p.dense;
  if (d.state === "complete") return `${keyword} · dense: complete`;
  // passages, as the index counts them: the figures of `status --json` and of a stopped run's message
  const [done, total] = [d.passages, d.of];
  const pct = Math.floor((100 * done) / Math.max(1, total));
  const tail =
    d.state === "stopped"
      ? p.keyword === "stopped"
        ? ""
        : `, stopped — run \`${how}\` to finish`
      : d.secondsLeft !== undefined
        ? `, ${timeLeft(d.secondsLeft)}`
        : "";
  // the order notes get their vectors in, while some wait for them
  const order = d.first?.length
    ? ` · ${d.first.map((f) => `${f}/`).join(", ")} first, then the most recently changed`
    : " · the most recently changed notes first";
  return `${keyword} · dense: ${pct}% (${num(done)}/${num(total)} passages)${tail}${order}`;
}
