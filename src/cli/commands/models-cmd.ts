import { MODELS_NOTE, recommendedModels, type RecommendedModel } from "../../core/models.js";
import { out } from "../io.js";

/** One model as lines of text: name, facts, published scores, the commands that switch to it. */
function modelLines(m: RecommendedModel): string[] {
  const lines = [
    `${m.id}`,
    `  ${m.languages}, ${m.dimensions}-d, ${m.parameters}${/^\d/.test(m.parameters) ? " parameters" : ""}; download: ${m.download}`,
    `  ${m.use}`,
  ];
  for (const s of m.published) lines.push(`  published: ${s.benchmark} ${s.value} (${s.source})`);
  if (m.queryPrefix || m.documentPrefix)
    lines.push(
      `  prefixes:  query ${JSON.stringify(m.queryPrefix)}, document ${JSON.stringify(m.documentPrefix)} (applied for you)`,
    );
  lines.push(`  switch:    ${m.commands.join("\n             ")}`);
  return lines;
}

/**
 * `vault-rag models`: the recommended embedding models and how to switch to each.
 *
 * @example
 * ```ts
 * runModels({ json: true }); // prints {"models": [...], "note": "..."}
 * ```
 */
export function runModels(o: { vault?: string; json?: boolean }): void {
  const models = recommendedModels({ vault: o.vault });
  if (o.json) return out(JSON.stringify({ models, note: MODELS_NOTE }, null, 2));
  out(models.map((m) => modelLines(m).join("\n")).join("\n\n"));
  out(`\n${MODELS_NOTE}\nMore: docs/models.md`);
}
