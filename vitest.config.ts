import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/chroma-setup.ts"],
    // generous: a test waits for events, never for fixed times, and a shared CI machine (load 12 on
    // 2 cores) runs a CLI command five to ten times slower than an idle one; the limits only catch hangs
    testTimeout: 300_000,
    hookTimeout: 300_000,
    pool: "forks",
  },
});
