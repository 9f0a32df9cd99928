import type { TestProject } from "vitest/node";
import { startChromaServer } from "./chroma-server.js";

/**
 * Starts one throwaway Chroma server for the whole run (tests use their own collections) and
 * stops it afterwards. On hosts with an old glibc the first run fetches a newer C library once.
 */
export default async function setup(project: TestProject) {
  let server;
  try {
    server = await startChromaServer({ log: (m) => process.stderr.write(m + "\n") });
  } catch (err) {
    // the Chroma tests say why they are skipped (test/support/needs.ts); the rest of the suite runs
    const why = (err as Error).message.replace(/^vault-rag: /, "").split("\n")[0];
    process.stderr.write(`vault-rag tests: no Chroma server, so the tests that need one are skipped: ${why}\n`);
    project.provide("chromaUrl", "");
    project.provide(
      "chromaMissing",
      `needs the Chroma server bundled with the chromadb package (glibc ≥ 2.39, or apt-get and a Debian mirror to fetch one): ${why}`,
    );
    return;
  }
  project.provide("chromaUrl", server.url);
  project.provide("chromaMissing", "");
  return async () => server.stop();
}

declare module "vitest" {
  export interface ProvidedContext {
    chromaUrl: string;
    /** Why there is no server ("" when there is one). */
    chromaMissing: string;
  }
}
