import { readProps, type Props } from "../../props.js";
import { matchesProp } from "../reference.js";
import type { PropNode } from "../where.js";

/** How many distinct texts each cache of {@link propTest} keeps (a note's passages share one). */
const CACHED = 512;

/** A map that forgets its oldest entry past {@link CACHED}. */
function remember<T>(cache: Map<string, T>, key: string, make: () => T): T {
  let v = cache.get(key);
  if (v === undefined) {
    v = make();
    if (cache.size >= CACHED) cache.delete(cache.keys().next().value as string);
    cache.set(key, v);
  }
  return v;
}

/**
 * The test behind the SQL function `vr_prop(c.props, condition)`: whether a chunk's properties (the
 * `props` column, JSON) pass a property condition (JSON of a {@link PropNode}), by
 * {@link matchesProp}. Both texts are parsed once while they repeat.
 *
 * @example
 * ```ts
 * db.function("vr_prop", { deterministic: true }, propTest());
 * ```
 */
export function propTest(): (props: unknown, condition: unknown) => number {
  const nodes = new Map<string, PropNode>();
  const parsed = new Map<string, Props>();
  return (props, condition) => {
    const node = remember(nodes, String(condition), () => JSON.parse(String(condition)) as PropNode);
    const own = remember(parsed, String(props ?? "{}"), () => readProps(String(props ?? "{}")));
    return matchesProp(node, own) ? 1 : 0;
  };
}
