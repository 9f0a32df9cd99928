import { describe, expect, it } from "vitest";
import { attachmentsLine } from "../../src/cli/commands/index-cmd.js";
import { summaryLine } from "../../src/cli/progress.js";
import { batchLine } from "../../src/indexing/watch.js";
import type { IndexSummary } from "../../src/indexing/index.js";

const none = { added: 0, updated: 0, deleted: 0, unchanged: 0, unreadable: 0 };
const run = { passages: 83, keywordSeconds: 1.1, embedded: 119, denseSeconds: 20, pending: 0 };

describe("an indexing run's counts, notes and attachments apart", () => {
  it("names the attachments in the summary line only when the run read any", () => {
    expect(summaryLine({ added: 43, updated: 0, attachments: { ...none, added: 3 }, ...run })).toBe(
      "indexed 43 notes, 3 attachments (83 passages) · keyword ready in 1.1 s · dense 119 windows in 20 s",
    );
    expect(summaryLine({ added: 0, updated: 0, attachments: { ...none, unreadable: 1 }, ...run })).toMatch(
      /^indexed 0 notes, 1 attachment \(/,
    );
    expect(summaryLine({ added: 1, updated: 0, attachments: none, ...run })).toMatch(/^indexed 1 note \(83 passages\)/);
  });

  it("gives the attachments a line of their own, and none to a vault without any", () => {
    expect(attachmentsLine({ ...none, added: 3, unreadable: 1 })).toBe(
      "attachments: 3 added, 0 updated, 0 deleted, 0 unchanged, 1 unreadable\n",
    );
    expect(attachmentsLine({ ...none, unchanged: 2 })).toBe(
      "attachments: 0 added, 0 updated, 0 deleted, 2 unchanged\n",
    );
    expect(attachmentsLine(none)).toBe("");
  });

  it("counts a watch batch's attachments apart only when it changed any", () => {
    const batch = (attachments: IndexSummary["attachments"]) =>
      batchLine({
        added: 0,
        updated: 1,
        deleted: 0,
        attachments,
        embedded: 2,
        cached: 0,
        seconds: 0.5,
      } as IndexSummary);
    expect(batch({ ...none, unchanged: 4 })).toBe(
      "0 added, 1 updated, 0 deleted (2 windows embedded, 0 from cache) in 0.50 s",
    );
    expect(batch({ ...none, updated: 1 })).toBe(
      "0 added, 1 updated, 0 deleted; attachments: 0 added, 1 updated, 0 deleted (2 windows embedded, 0 from cache) in 0.50 s",
    );
  });
});
