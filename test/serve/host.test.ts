import { describe, expect, it } from "vitest";
import { hostAllowed, isLoopback, isWildcard } from "../../src/serve/guard.js";

describe("the bound address and the Host header, however they are written", () => {
  it("takes every form of a loopback address for loopback, and no other address", () => {
    for (const h of ["127.1", "0x7f.1", "127.255.255.254", "0:0:0:0:0:0:0:1", "[::1]", "::ffff:127.0.0.1", "LOCALHOST"])
      expect(isLoopback(h), h).toBe(true);
    for (const h of [
      "0.0.0.0",
      "::",
      "192.168.1.20",
      "128.0.0.1",
      "::2",
      "::ffff:192.168.1.20",
      "localhost.evil.example",
    ])
      expect(isLoopback(h), h).toBe(false);
    expect(isWildcard("0:0:0:0:0:0:0:0")).toBe(true);
    expect(isWildcard("0")).toBe(true);
  });

  it("answers the Host a browser sends for a bind written in another form, and still refuses other names and ports", () => {
    expect(hostAllowed("127.0.0.1:4470", "127.1", 4470)).toBe(true);
    expect(hostAllowed("127.1:4470", "127.1", 4470)).toBe(true);
    expect(hostAllowed("localhost:4470", "127.1", 4470)).toBe(true);
    expect(hostAllowed("[::1]:4470", "0:0:0:0:0:0:0:1", 4470)).toBe(true);
    expect(hostAllowed("[::ffff:7f00:1]:4470", "::ffff:127.0.0.1", 4470)).toBe(true);
    expect(hostAllowed("127.0.0.1:4470", "::ffff:127.0.0.1", 4470)).toBe(true);
    expect(hostAllowed("127.0.0.1:4471", "127.1", 4470)).toBe(false);
    expect(hostAllowed("rebind.example:4470", "127.1", 4470)).toBe(false);
    expect(hostAllowed("rebind.example:4470", "0:0:0:0:0:0:0:1", 4470)).toBe(false);
    expect(hostAllowed("evil@127.0.0.1:4470", "127.0.0.1", 4470)).toBe(false);
    expect(hostAllowed("127.0.0.1:4470/x", "127.0.0.1", 4470)).toBe(false);
    expect(hostAllowed("127.0.0.1", "127.0.0.1", 80)).toBe(true);
    expect(hostAllowed("192.168.1.20:4470", "192.168.1.20", 4470)).toBe(true);
    expect(hostAllowed("localhost:4470", "192.168.1.20", 4470)).toBe(false);
  });
});
