import type { PropCount, PropValueCount } from "../../library.js";
import { printable } from "../../shared/snippet-text.js";
import { err, out, stderrLogger } from "../io.js";
import { locate } from "../open.js";
import { openReader } from "../resident.js";

/** A property's types as a listing names them: `string`, or `string 3, list 1` when they are mixed. */
function typesOf(p: PropCount): string {
  const types = Object.entries(p.types).sort((a, b) => b[1] - a[1]);
  return types.length === 1 ? types[0][0] : types.map(([t, n]) => `${t} ${n}`).join(", ");
}

/**
 * `vault-rag props [name]`: the notes' properties with counts and value types, or one property's
 * values with counts.
 *
 * @example
 * ```ts
 * await runProps(undefined, { vault: "/home/me/notes" }); // "  12  status  string" …
 * ```
 */
export async function runProps(
  name: string | undefined,
  o: { vault?: string; db?: string; json?: boolean; daemon?: boolean },
): Promise<void> {
  const v = await openReader(locate(o), o, { log: stderrLogger(false) });
  try {
    const rows: (PropCount | PropValueCount)[] = name === undefined ? await v.props() : await v.props(name);
    if (o.json) return out(JSON.stringify(rows, null, 2));
    // nothing on stdout, as for no hits; the reason on stderr
    if (!rows.length) return err("no properties: no note in the index has frontmatter properties");
    const width = Math.max(0, ...rows.map((r) => String(r.notes).length));
    const line = (r: PropCount | PropValueCount) =>
      "field" in r
        ? `${String(r.notes).padStart(width)}  ${printable(r.field)}  ${typesOf(r)}`
        : `${String(r.notes).padStart(width)}  ${printable(r.value)}${r.type === "string" || r.type === "list" ? "" : `  (${r.type})`}`;
    out(rows.map(line).join("\n"));
  } finally {
    await v.close();
  }
}
