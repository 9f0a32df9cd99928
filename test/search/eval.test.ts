import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { prepareBeir, readKnownAnswers, scoreRanking } from "../../src/search/eval.js";

describe("retrieval metrics", () => {
  it("computes nDCG@10, recall and MRR with binary relevance, counting each item once", () => {
    const s = scoreRanking(["x", "a", "a", "y", "b"], new Set(["a", "b", "c"]));
    const dcg = 1 / Math.log2(3) + 1 / Math.log2(5);
    const idcg = 1 + 1 / Math.log2(3) + 1 / Math.log2(4);
    expect(s.ndcg10).toBeCloseTo(dcg / idcg, 12);
    expect(s.recall1).toBe(0);
    expect(s.recall5).toBeCloseTo(2 / 3, 12);
    expect(s.mrr10).toBe(0.5);
    expect(scoreRanking([], new Set(["a"]))).toMatchObject({ ndcg10: 0, recall10: 0, mrr10: 0 });
  });
});

describe("benchmark files", () => {
  it("reads a BEIR folder into a cached corpus of notes and qrels", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vr-beir-"));
    fs.writeFileSync(
      path.join(dir, "corpus.jsonl"),
      [
        '{"_id": "d1", "title": "Motors: a \\"study\\"", "text": "N20 motors stall."}',
        '{"_id": "d/2", "title": "", "text": "Bread."}',
      ].join("\n"),
    );
    fs.writeFileSync(
      path.join(dir, "queries.jsonl"),
      '{"_id": "q1", "text": "why do motors stall"}\n{"_id": "q2", "text": "unjudged"}\n',
    );
    fs.writeFileSync(path.join(dir, "qrels.tsv"), "query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td/2\t0\n");
    const { vault, qrels } = prepareBeir(dir, path.join(dir, "cache"));
    expect(fs.readFileSync(path.join(vault, "docs/d1.md"), "utf8")).toBe(
      '---\ntitle: "Motors: a \\"study\\""\nbeir_id: "d1"\n---\nN20 motors stall.\n',
    );
    expect(fs.existsSync(path.join(vault, "docs/d_2.md"))).toBe(true);
    expect(qrels.queries).toEqual([{ id: "q1", text: "why do motors stall" }]);
    expect([...qrels.relevant.get("q1")!]).toEqual(["docs/d1.md"]);
    expect(() => prepareBeir(path.join(dir, "cache"))).toThrow(
      /is not a BEIR folder — it needs corpus\.jsonl, queries\.jsonl and qrels\.tsv$/,
    );
    // the cache is keyed by the corpus's content: touched, it is the same corpus; changed, another
    const corpus = path.join(dir, "corpus.jsonl");
    fs.utimesSync(corpus, new Date(2030, 0, 1), new Date(2030, 0, 1));
    expect(prepareBeir(dir, path.join(dir, "cache")).vault).toBe(vault);
    fs.appendFileSync(corpus, '\n{"_id": "d3", "title": "Soil", "text": "Loam."}');
    expect(prepareBeir(dir, path.join(dir, "cache")).vault).not.toBe(vault);
  });

  it("reads known-answer files and names the bad line", () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "vr-ka-")), "q.jsonl");
    fs.writeFileSync(file, '{"question": "a", "paths": ["x.md"], "kind": "short"}\n{"question": "b", "paths": []}\n');
    expect(() => readKnownAnswers(file)).toThrow(
      `vault-rag: ${file} line 2 needs "question" and a non-empty "paths" list (the notes that answer it) — write {"question": "how do I save power", "paths": ["electronics/Pico W.md"]}`,
    );
    // a field eval does not read is named: likely the one meant for "paths"
    fs.writeFileSync(file, '{"question": "b", "relevant": ["x.md"]}\n');
    expect(() => readKnownAnswers(file)).toThrow(
      `vault-rag: ${file} line 1 needs "question" and a non-empty "paths" list (the notes that answer it); it has "relevant", which eval does not read — write {"question": "how do I save power", "paths": ["electronics/Pico W.md"]}`,
    );
    expect(readKnownAnswers(path.resolve("examples/questions.jsonl")).queries.length).toBeGreaterThanOrEqual(40);
    fs.writeFileSync(file, '{"question": "a", "paths": ["x.md"]}\n\n{nope\n');
    expect(() => readKnownAnswers(file)).toThrow(
      `vault-rag: ${file} line 3 is not JSON — a known-answer file holds one JSON object per line`,
    );
    fs.writeFileSync(file, "\n");
    expect(() => readKnownAnswers(file)).toThrow(
      `vault-rag: ${file} holds no questions — write one JSON object per line, like {"question": "how do I save power", "paths": ["electronics/Pico W.md"]}`,
    );
  });

  it("reads a question's filter as a where object, and names the line of a bad one", () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "vr-ka-")), "q.jsonl");
    fs.writeFileSync(
      file,
      '{"question": "port", "paths": ["remix/a.md"], "kind": "filtered", "filter": {"folder": "remix"}}\n',
    );
    expect(readKnownAnswers(file).queries).toEqual([
      { id: "1", text: "port", kind: "filtered", where: { folder: "remix" } },
    ]);
    fs.writeFileSync(
      file,
      '{"question": "a", "paths": ["x.md"]}\n{"question": "b", "paths": ["x.md"], "filter": {"folders": "x"}}\n',
    );
    expect(() => readKnownAnswers(file)).toThrow(
      `vault-rag: ${file} line 2 has a bad "filter": unknown metadata field "folders" — did you mean "folder"? — known fields: path, title, section, folder, top_folder, date_source, file_type, mtime, date, word_count, ordinal, start_line, end_line, page, tags, links, aliases`,
    );
  });
});
