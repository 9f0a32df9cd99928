import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { indexVault } from "../../src/indexing/index.js";
import { useLiteEmbedder, type Embedder } from "../../src/embed/index.js";
import { languageThreads, PassageLanguages, SqliteStore, type StoreRecord } from "../../src/store/index.js";
import { loadLanguageDetector } from "../../src/store/language.js";
import {
  indexLanguages,
  passageLanguage,
  primePassageLanguages,
  recordLanguages,
} from "../../src/store/sqlite/fts-text.js";
import { meta, openStore, tmpDb, vec } from "./helpers.js";

const SENTENCES: Readonly<Record<string, readonly string[]>> = {
  de: [
    "Ein synchroner Zähler besteht aus mehreren Flip-Flops, die alle am selben Takt hängen.",
    "Die Kette alle 300 km ölen und den Verschleiß mit einer Lehre messen, bevor sie sich dehnt.",
    "Der Sauerteig muss über Nacht bei Zimmertemperatur gehen, damit das Brot locker wird.",
    "Im Garten werden die Tomaten im Mai gepflanzt und jeden Abend gründlich gegossen.",
    "Das Schieberegister nimmt die Daten seriell an und gibt sie parallel an den Ausgängen aus.",
  ],
  fr: [
    "La chaîne doit être huilée tous les 300 km, et son usure mesurée avec une jauge.",
    "Le levain doit reposer toute la nuit à température ambiante pour que le pain soit léger.",
    "Dans le jardin, les tomates sont plantées en mai et arrosées chaque soir avec soin.",
    "Un compteur synchrone se compose de plusieurs bascules qui partagent la même horloge.",
    "Le registre à décalage reçoit les données en série et les rend en parallèle sur ses sorties.",
  ],
  en: [
    "The chain should be oiled every 300 km, and the wear is measured with a gauge before it stretches.",
    "The sourdough has to rise overnight at room temperature so that the bread is light.",
    "In the garden the tomatoes are planted in May and watered every evening with care.",
    "A synchronous counter is built from several flip-flops that all share the same clock.",
    "The shift register takes its data in serially and gives it out in parallel on its outputs.",
  ],
};

/** A passage of `lang` made of three of its sentences, the `i`th of its kind. */
function prose(lang: string, i: number): string {
  const s = SENTENCES[lang];
  return [s[i % 5], s[(i + 1) % 5], s[(i + 3) % 5], `(${i})`].join(" ");
}

const LANGS = ["de", "fr", "en"];

/** A vault of `notes` notes in German, French and English in turn, three sections each. */
function vault(notes: number): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vr-lang-thread-"));
  for (let i = 0; i < notes; i++) {
    const lang = LANGS[i % 3];
    const body = [0, 1, 2].map((k) => `## ${lang} ${k}\n\n${prose(lang, i + k)}`).join("\n\n");
    fs.writeFileSync(path.join(dir, `${lang}-${i}.md`), `# ${lang} ${i}\n\n${body}\n`);
  }
  return dir;
}

/** A store's keyword index as FTS5 holds it (every term of every row, field and place), and its chunks. */
function keywordRows(file: string): { terms: unknown[]; chunks: unknown[]; languages: string[] } {
  const s = SqliteStore.open(file);
  try {
    s.db.exec("CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, 'fts', 'instance')");
    return {
      terms: s.db.prepare("SELECT term, doc, col, offset FROM temp.vocab ORDER BY doc, col, offset").raw().all(),
      chunks: s.db.prepare("SELECT rowid, title, section FROM chunks ORDER BY rowid").raw().all(),
      languages: indexLanguages(s.db),
    };
  } finally {
    s.close();
  }
}

/** The bundled model's id and sizes, with the same vector for every passage: the keyword phase is what is tested. */
function standInEmbedder(): Embedder {
  const real = useLiteEmbedder();
  return {
    ...real,
    embedDocuments: (texts: string[]) =>
      Promise.resolve(texts.map(() => Float32Array.from({ length: real.dimensions }, (_, i) => (i ? 0 : 1)))),
  };
}

beforeAll(() => loadLanguageDetector());

describe("passage languages on a second thread", () => {
  // first in the file: the process has seen no language yet, so the index's record of its
  // languages comes from the languages told on the thread alone
  it("tells a batch's languages as the calling thread does, and writes the same keyword rows", async () => {
    const records: StoreRecord[] = [];
    for (let i = 0; i < 1500; i++) {
      const lang = LANGS[i % 3];
      const m = meta({
        path: `${lang}/${Math.floor(i / 3)}.md`,
        ordinal: i,
        title: `${lang} ${i}`,
        section: `${lang} ${i % 7}`,
      });
      records.push({ id: `c${i}`, text: prose(lang, i), meta: m, windows: [{ hash: m.hash, vector: vec(1) }] });
    }
    const batch = (rs: StoreRecord[]) => [
      {
        note: { path: "batch.md", hash: "h", mtime: 1, size: 1 },
        records: rs.map((r) => ({ ...r, meta: { ...r.meta, path: "batch.md" } })),
      },
    ];
    const passages = records.map((r) => ({ title: r.meta.title, section: r.meta.section, text: r.text }));
    const threaded = new PassageLanguages(0);
    const before = { ...languageThreads };
    try {
      expect(await threaded.started()).toBe(true);
      const a = await openStore(tmpDb());
      await threaded.prime(passages);
      expect(threaded.offThread).toBeGreaterThan(0);
      await a.upsertNotes(batch(records));
      a.close();
      expect(keywordRows(a.location).languages).toEqual(["de", "fr"]);

      const b = await openStore(tmpDb());
      await b.upsertNotes(batch(records)); // told here, passage by passage, as before
      b.close();
      expect(keywordRows(a.location)).toEqual(keywordRows(b.location));
      expect(languageThreads.started).toBe(before.started + 1);
    } finally {
      await threaded.close();
    }
    expect(languageThreads.running).toBe(0);
    // the same answers as the calling thread's, passage by passage
    const here = passages.map((p) => passageLanguage(p.title, p.section, p.text));
    expect(new Set(here)).toEqual(new Set(["de", "fr", undefined]));
  });

  it("indexes a vault the same with the thread as without, and ends the thread with the run", async () => {
    const dir = vault(90);
    const started = languageThreads.started;
    const opts = { batchNotes: 16 };
    await indexVault(dir, path.join(dir, "threaded.db"), standInEmbedder(), { ...opts, languageThreadPassages: 1 });
    expect(languageThreads.started).toBe(started + 1);
    expect(languageThreads.running).toBe(0);
    await indexVault(dir, path.join(dir, "here.db"), standInEmbedder(), {
      ...opts,
      languageThreadPassages: Infinity,
    });
    expect(languageThreads.started).toBe(started + 1);
    const threaded = keywordRows(path.join(dir, "threaded.db"));
    expect(threaded.languages).toEqual(["de", "fr"]);
    expect(threaded).toEqual(keywordRows(path.join(dir, "here.db")));
  });

  it("ends the thread when the run is stopped", async () => {
    const dir = vault(60);
    const stop = new AbortController();
    const started = languageThreads.started;
    const run = indexVault(dir, path.join(dir, "stopped.db"), standInEmbedder(), {
      batchNotes: 16,
      languageThreadPassages: 1,
      signal: stop.signal,
      onProgress: (phase, done) => {
        if (phase === "index" && done >= 32) stop.abort();
      },
    });
    await expect(run).rejects.toMatchObject({ code: "stopped" });
    expect(languageThreads.started).toBe(started + 1);
    expect(languageThreads.running).toBe(0);
  });

  it("answers a passage told ahead as told, and records its language as one it read", async () => {
    const s = await openStore(tmpDb());
    const told = {
      title: "Kette",
      section: "Fahrrad",
      text: "Die Kette alle 300 km ölen und den Verschleiß messen",
      lang: "sv",
    };
    primePassageLanguages([told]);
    try {
      expect(passageLanguage(told.title, told.section, told.text)).toBe("sv");
      expect(passageLanguage(told.title, told.section, told.text)).toBe("sv"); // the same passage again
      s.db.transaction(() => recordLanguages(s.db))();
      expect(indexLanguages(s.db)).toContain("sv");
    } finally {
      primePassageLanguages(undefined);
      s.close();
    }
    expect(passageLanguage(told.title, told.section, told.text)).toBe("de");
  });

  it("starts no thread for a batch expected to send fewer passages to the detector", async () => {
    const languages = new PassageLanguages(1_000_000);
    const started = languageThreads.started;
    const passages = Array.from({ length: 300 }, (_, i) => ({
      title: "t",
      section: "s",
      text: prose(LANGS[i % 3], i),
    }));
    await languages.prime(passages);
    await languages.prime(passages);
    expect(languages.offThread).toBe(0);
    expect(languageThreads.started).toBe(started);
    await languages.close();
  });
});
