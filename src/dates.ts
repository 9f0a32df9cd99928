/**
 * Dates as notes write them (`2026-03-14`, `2026-03-14T09:30`), read as Unix seconds: one rule for
 * the vault (frontmatter dates, dates in file names) and the filters (a date a `where` compares).
 */

/** An ISO date, with an optional time and zone: what Obsidian's date and date-time properties hold. */
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * Unix seconds of an ISO date or date-time, or undefined when the text is none (or names a day
 * that does not exist, like 2026-02-30). A date alone is local midnight, and a time without a zone
 * is local time, as `--since 2026-03-14` reads it.
 *
 * @example
 * ```ts
 * isoDateSeconds("2026-03-14T09:30:00Z"); // 1773480600
 * isoDateSeconds("2026-03-14");           // local midnight of March 14th
 * isoDateSeconds("March 14");             // undefined
 * ```
 */
export function isoDateSeconds(text: string): number | undefined {
  const m = ISO_DATE.exec(text.trim());
  if (!m) return undefined;
  const [y, mo, d, h = "0", mi = "0", s = "0"] = m.slice(1, 7);
  const zone = m[7];
  const at = new Date(0);
  if (zone) at.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  else at.setFullYear(Number(y), Number(mo) - 1, Number(d));
  const [gotM, gotD] = zone ? [at.getUTCMonth(), at.getUTCDate()] : [at.getMonth(), at.getDate()];
  if (gotM !== Number(mo) - 1 || gotD !== Number(d) || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59)
    return undefined;
  if (zone) {
    at.setUTCHours(Number(h), Number(mi), Number(s), 0);
    const z = zone === "Z" ? 0 : (zone[0] === "-" ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(-2)));
    return Math.floor(at.getTime() / 1000) - z * 60;
  }
  at.setHours(Number(h), Number(mi), Number(s), 0);
  return Math.floor(at.getTime() / 1000);
}
