import type { TestProject } from "vitest/node";
import { startChromaServer } from "../bench/chroma-server.js";

/**
 * Starts one throwaway Chroma server for the whole run (tests use their own collections) and
 * stops it afterwards. On hosts with an old glibc the first run fetches a newer C library once.
 */
export default async function setup(project: TestProject) {
  const server = await startChromaServer({ log: (m) => process.stderr.write(m + "\n") });
  project.provide("chromaUrl", server.url);
  return async () => server.stop();
}

declare module "vitest" {
  export interface ProvidedContext {
    chromaUrl: string;
  }
}
