import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

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

/** Words of ordinary note prose, so that benchmark questions ("battery power for the robot") find passages. */
const PROSE =
  "the a of and to in is it that for on with as this was at by be from or are an have not but which one all we can there been if more when will would so no what out up about into than them some could only other then its also time two like new first may people use way these any after work made most over did much where system data well back good years part because same each well still how make three through long should since here number under last while might great old year off come since against go came right used take between own both before".split(
    " ",
  );

/** Where a generated note goes and what kind it is. */
interface NotePlan {
  title: string;
  folder: string;
  kind: "daily" | "short" | "medium" | "long";
}

/** The word planted in every 1,000th note (at 500, 1,500, …) so a keyword search can tell when all are searchable. */
export const SCALE_MARKER = "zqscalemarker";

/** How many notes of a generated vault of `n` notes hold {@link SCALE_MARKER}. */
export function markerNotes(n: number): number {
  return Math.floor((n + 500) / 1000);
}

/** A date `days` after 2001-01-01, as YYYY-MM-DD. */
function dayName(days: number): string {
  return new Date(Date.UTC(2001, 0, 1) + days * 86_400_000).toISOString().slice(0, 10);
}

/**
 * Writes a realistic generated vault of `n` notes under `dir`, the same for the same `n` and seed:
 * nested folders (areas > topics > subtopics), a tenth daily notes under `Journal/YYYY/MM/`, a mix of
 * short, medium and long notes (headings, paragraphs, lists, tasks, code blocks, tables, quotes),
 * tags in frontmatter and inline (some nested, `#project/alpha`), aliases, and wikilinks to other
 * notes (`[[Title]]`, `[[Title|text]]`, `[[Title#Heading]]`), a few notes being hubs that many link to.
 * About 3 passages a note with the default chunking. Every 1,000th note (at 500, 1,500, …) holds
 * {@link SCALE_MARKER}. Returns the notes' vault-relative paths.
 *
 * @example
 * ```ts
 * generateScaleVault("/tmp/vault-10k", 10_000); // then: vault-rag index /tmp/vault-10k
 * ```
 */
export function generateScaleVault(dir: string, n: number, seed = 7): string[] {
  const r = rng(seed);
  const zipf = zipfSampler(r);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)];
  const word = () => (r() < 0.45 ? pick(PROSE) : zipf());
  const sentence = (k: number) => {
    const s = Array.from({ length: k }, word).join(" ");
    return s[0].toUpperCase() + s.slice(1) + (r() < 0.1 ? "?" : ".");
  };
  const paragraph = (words: number) => {
    const out: string[] = [];
    for (let left = words; left > 0;) {
      const k = Math.min(left, 6 + Math.floor(r() * 18));
      out.push(sentence(k));
      left -= k;
    }
    return out.join(" ");
  };
  const areas = ["Projects", "Areas", "Resources", "Archive", "Work", "Reading", "Recipes", "Research"];
  // about one leaf folder per 40 notes, two or three levels deep
  const leaves = Array.from({ length: Math.max(4, Math.floor(n / 40)) }, (_, i) => {
    const topic = `${zipf()} ${i % 97}`;
    return i % 3 ? `${areas[i % areas.length]}/${topic}` : `${areas[i % areas.length]}/${topic}/${zipf()}`;
  });
  const tagNames = Array.from({ length: 300 }, (_, i) =>
    i % 5 === 0 ? `project/${zipf()}-${i}` : i < 12 ? WORDS[i] : `${zipf()}${i}`,
  );
  const tag = () => tagNames[Math.min(tagNames.length - 1, Math.floor(tagNames.length * r() * r()))];
  const plans: NotePlan[] = [];
  let day = 0;
  for (let i = 0; i < n; i++) {
    if (i % 10 === 3) {
      const d = dayName(day++);
      plans.push({ title: d, folder: `Journal/${d.slice(0, 4)}/${d.slice(5, 7)}`, kind: "daily" });
      continue;
    }
    const x = r();
    const kind = x < 0.3 ? "short" : x < 0.8 ? "medium" : "long";
    plans.push({ title: `${zipf()} ${word()} ${zipf()} ${i}`, folder: pick(leaves), kind });
  }
  // a link's target: often one of the first 1% of notes (hubs), else any note
  const target = () => plans[r() < 0.2 ? Math.floor(r() * Math.max(1, n / 100)) : Math.floor(r() * n)];
  const link = () => {
    const t = target();
    const y = r();
    return y < 0.7 ? `[[${t.title}]]` : y < 0.85 ? `[[${t.title}|${zipf()} ${zipf()}]]` : `[[${t.title}#Notes]]`;
  };
  const withLinks = (p: string) => (r() < 0.5 ? `${p} See ${link()}${r() < 0.3 ? ` and ${link()}` : ""}.` : p);
  const blocks = {
    list: () =>
      Array.from({ length: 3 + Math.floor(r() * 5) }, () =>
        r() < 0.3
          ? `- [${r() < 0.5 ? "x" : " "}] ${sentence(5 + Math.floor(r() * 6))}`
          : `- ${sentence(4 + Math.floor(r() * 10))}`,
      ).join("\n"),
    code: () =>
      "```" +
      pick(["ts", "python", "bash", "json"]) +
      "\n" +
      Array.from(
        { length: 4 + Math.floor(r() * 12) },
        (_, k) => `${"  ".repeat(k % 3)}let ${zipf()} = ${zipf()}(${k});`,
      ).join("\n") +
      "\n```",
    table: () =>
      `| ${zipf()} | ${zipf()} | ${zipf()} |\n|---|---|---|\n` +
      Array.from(
        { length: 3 + Math.floor(r() * 6) },
        () => `| ${zipf()} | ${Math.floor(r() * 1000)} | ${word()} ${zipf()} |`,
      ).join("\n"),
    quote: () => `> ${sentence(10 + Math.floor(r() * 15))}`,
  };
  const section = (heading: string, words: number) => {
    const parts = [heading, withLinks(paragraph(words))];
    if (r() < 0.35) parts.push(pick(Object.values(blocks))());
    if (r() < 0.3) parts.push(withLinks(paragraph(20 + Math.floor(r() * 60))));
    return parts.join("\n\n");
  };
  const files: string[] = [];
  const folders = new Set<string>();
  for (const [i, p] of plans.entries()) {
    const tags = Array.from({ length: Math.floor(r() * 4) }, tag);
    const front: string[] = [];
    if (tags.length) front.push(`tags: [${tags.join(", ")}]`);
    if (r() < 0.1) front.push(`aliases: [${zipf()} ${i}]`);
    if (r() < 0.3) front.push(`created: ${dayName(Math.floor(r() * 9000))}`);
    if (r() < 0.15) front.push(`status: ${pick(["draft", "done", "someday", "active"])}`);
    const body: string[] = front.length ? [`---\n${front.join("\n")}\n---`] : [];
    if (p.kind === "daily") {
      body.push(
        `# ${p.title}`,
        `## Log\n\n${withLinks(paragraph(30 + Math.floor(r() * 80)))}`,
        `## Tasks\n\n${blocks.list()}`,
      );
      if (r() < 0.4) body.push(`## Notes #${tag()}\n\n${withLinks(paragraph(40 + Math.floor(r() * 100)))}`);
    } else {
      body.push(`# ${p.title}`);
      if (p.kind === "short") body.push(withLinks(paragraph(20 + Math.floor(r() * 90))));
      else {
        body.push(withLinks(paragraph(30 + Math.floor(r() * 60))));
        const sections = p.kind === "medium" ? 1 + Math.floor(r() * 3) : 4 + Math.floor(r() * 4);
        for (let k = 0; k < sections; k++) {
          const h = k === 0 && r() < 0.3 ? "Notes" : `${zipf()} ${word()}`;
          const deep = p.kind === "long" && k % 3 === 2 ? "###" : "##";
          body.push(section(`${deep} ${h}${r() < 0.15 ? ` #${tag()}` : ""}`, 40 + Math.floor(r() * 130)));
        }
      }
    }
    if (i % 1000 === 500) body.push(`The ${SCALE_MARKER} word marks this note for the scale benchmark.`);
    if (!folders.has(p.folder)) {
      fs.mkdirSync(path.join(dir, p.folder), { recursive: true });
      folders.add(p.folder);
    }
    const rel = `${p.folder}/${p.title}.md`;
    fs.writeFileSync(path.join(dir, rel), body.join("\n\n") + "\n");
    files.push(rel);
  }
  return files;
}

// `tsx bench/gen.ts <folder> [notes] [seed]`: writes a generated vault (see generateScaleVault)
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [dir, notes = "100000", seed = "7"] = process.argv.slice(2);
  if (!dir) {
    console.error("usage: tsx bench/gen.ts <folder> [notes=100000] [seed=7]");
    process.exit(2);
  }
  const t = performance.now();
  const files = generateScaleVault(dir, Number(notes), Number(seed));
  console.log(`wrote ${files.length} notes under ${dir} in ${((performance.now() - t) / 1000).toFixed(1)} s`);
}
