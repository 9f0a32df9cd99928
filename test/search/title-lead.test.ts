import { describe, expect, it } from "vitest";
import { rarestTitledFirst, rarestWords } from "../../src/search/title-lead.js";
import { meta, openStore, record, tmpDb, vec } from "../store/helpers.js";

const hit = (path: string, text: string, distance: number) => {
  const title = path.replace(/\.md$/, "");
  return { path, text, distance, score: 1 - distance, meta: meta({ path, title, section: title }) };
};

const note = (p: string) => ({ path: p, hash: p, mtime: 1, size: 1 });

describe("a note named by the question's rarest word", () => {
  const keepalive = hit(
    "TCP keepalive.md",
    "sysctl tcp_keepalive_time sets how often idle TCP connections are probed; how keepalive works.",
    0,
  );
  const handshake = hit("Three Way Handshake.md", "This is how TCP opens every connection: SYN, SYN-ACK, ACK.", 0.1);
  const lsof = hit("lsof.md", "lsof -i tcp:3000 shows what holds port 3000.", 0.2);
  const found = { rarest: ["handshak"], words: ["tcp", "handshak", "work"] };

  it("leads when the first hit's name lacks it and it holds as many of the question's words", () => {
    const out = rarestTitledFirst([keepalive, lsof, handshake], found);
    expect(out.map((h) => h.path)).toEqual(["Three Way Handshake.md", "TCP keepalive.md", "lsof.md"]);
    // it takes the first hit's distance, so the list stays in order
    expect(out[0]).toMatchObject({ distance: 0, score: 1, named: true });
  });

  it("does not lead when it holds fewer of the question's words than the first hit", () => {
    const bare = hit("Handshake.md", "A greeting.", 0.1);
    expect(rarestTitledFirst([keepalive, bare], found).map((h) => h.path)).toEqual([
      "TCP keepalive.md",
      "Handshake.md",
    ]);
  });

  it("leaves the list as it is when the first hit is named by it, or no rarest word is known", () => {
    expect(rarestTitledFirst([handshake, keepalive], found)).toEqual([handshake, keepalive]);
    expect(rarestTitledFirst([keepalive, handshake], undefined)).toEqual([keepalive, handshake]);
  });
});

describe("rarestWords", () => {
  it("gives the words the fewest passages hold, for a question of two to four words besides stopwords", async () => {
    const s = await openStore(tmpDb());
    const notes: [string, string][] = [
      ["Three Way Handshake", "How TCP opens a connection: the handshake of SYN, SYN-ACK and ACK."],
      ["lsof", "lsof -i tcp:3000 shows what holds the TCP port."],
      ["netcat", "nc -zv host 443 checks that a TCP port answers; it works everywhere."],
    ];
    await s.upsertNotes(
      notes.map(([title, text], i) => ({
        note: note(`${title}.md`),
        records: [record(`n${i}`, meta({ path: `${title}.md`, title, section: title }), vec(1, 0, 0, 0), text)],
      })),
    );
    expect(await rarestWords(s, "how does TCP handshake work")).toEqual({
      rarest: ["handshak", "work"],
      words: ["tcp", "handshak", "work"],
    });
    // one word, or more than four: nothing
    expect(await rarestWords(s, "handshake")).toBeUndefined();
    expect(await rarestWords(s, "tcp handshake port answers host checks")).toBeUndefined();
    // every word held by as many passages: none is rarer
    expect(await rarestWords(s, "syn ack")).toBeUndefined();
    await s.close();
  });
});
