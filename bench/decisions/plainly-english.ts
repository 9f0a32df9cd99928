/**
 * How `plainlyEnglish` agrees with the language detector, and what each costs, on the passages of
 * existing indexes: for each index, its passages of 8 words or more, the milliseconds the detector
 * (`stemmingLanguage`) and `plainlyEnglish` take over all of them, how many `plainlyEnglish` calls
 * English, and each passage it calls English that the detector would stem (printed).
 *
 * `npm run build && npx tsx bench/decisions/plainly-english.ts <index.db> [<index.db> …]`
 */
import Database from "better-sqlite3";
import { loadLanguageDetector, plainlyEnglish, stemmingLanguage } from "../../dist/store/language.js";

await loadLanguageDetector();
for (const file of process.argv.slice(2)) {
  const db = new Database(file, { readonly: true });
  const rows = db.prepare("SELECT title, section, text FROM chunks").all() as {
    title: string;
    section: string;
    text: string;
  }[];
  db.close();
  const texts = rows
    .filter((r) => (r.text.match(/\p{L}{2,}/gu)?.length ?? 0) >= 8)
    .map((r) => `${r.title}\n${r.section}\n${r.text}`);
  let t = performance.now();
  const told = texts.map((x) => stemmingLanguage(x));
  const detectorMs = performance.now() - t;
  t = performance.now();
  const english = texts.map((x) => plainlyEnglish(x));
  const plainMs = performance.now() - t;
  const disagree = texts.filter((x, i) => english[i] && told[i] !== undefined);
  console.log(
    `${file}: ${texts.length} passages; detector ${detectorMs.toFixed(0)} ms, plainlyEnglish ${plainMs.toFixed(0)} ms; ` +
      `English ${english.filter(Boolean).length}; stemmed by the detector but English here ${disagree.length}`,
  );
  for (const x of disagree) console.log(`  ${x.slice(0, 120).replace(/\n/g, " | ")}`);
}
