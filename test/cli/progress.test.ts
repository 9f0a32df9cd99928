import { describe, expect, it } from "vitest";
import { secs } from "../../src/cli/progress.js";

describe("an indexing ETA", () => {
  it("rounds before it splits minutes and hours, so it never shows 60 of a smaller unit", () => {
    expect(secs(0.2)).toBe("1s");
    expect(secs(59.4)).toBe("59s");
    expect(secs(59.6)).toBe("1m00s");
    expect(secs(119.6)).toBe("2m00s");
    expect(secs(3599.6)).toBe("1h00m");
    expect(secs(7170)).toBe("2h00m");
    expect(secs(3725)).toBe("1h02m");
  });
});
