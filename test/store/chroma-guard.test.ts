import { describe, expect, it } from "vitest";
import { guard, NOT_YET_ON_DISK_RETRY } from "../../src/store/chroma/client.js";

const loc = { server: "http://127.0.0.1:9", host: "127.0.0.1", port: 9, ssl: false, collection: "notes" };
const notYet = () =>
  new Error("Error executing plan: Internal error: Error creating hnsw segment reader: Nothing found on disk");

describe("Chroma calls", () => {
  it("asks again a read the server answered before its vector index was on disk", async () => {
    let calls = 0;
    const got = await guard(loc, "read cached vectors", async () => {
      if (++calls < 3) throw notYet();
      return "vectors";
    });
    expect(got).toBe("vectors");
    expect(calls).toBe(3);
  });

  it("gives up after the last retry with the one-line error, and never retries another error", async () => {
    let calls = 0;
    await expect(
      guard(loc, "read cached vectors", async () => {
        calls++;
        throw notYet();
      }),
    ).rejects.toThrow(
      'vault-rag: Chroma at http://127.0.0.1:9 failed to read cached vectors in "notes": Error executing plan: Internal error: Error creating hnsw segment reader: Nothing found on disk',
    );
    expect(calls).toBe(NOT_YET_ON_DISK_RETRY.times + 1);
    calls = 0;
    await expect(
      guard(loc, "count chunks", async () => {
        calls++;
        throw new Error("Collection [notes] does not exist");
      }),
    ).rejects.toThrow('failed to count chunks in "notes"');
    expect(calls).toBe(1);
  });
});
