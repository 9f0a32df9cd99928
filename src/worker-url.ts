import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

/**
 * The URL a `Worker` runs for the script `name` beside the module at `from` (its `import.meta.url`):
 * the built `.js` file, or, when the caller runs from its TypeScript source (the test suite, through
 * tsx), a small module that registers tsx and imports the `.ts` file.
 *
 * @example
 * ```ts
 * new Worker(workerUrl(import.meta.url, "thread-worker")); // dist/vault/attachments/thread-worker.js
 * ```
 */
export function workerUrl(from: string, name: string): URL {
  if (!from.endsWith(".ts")) return new URL(`./${name}.js`, from);
  const tsx = pathToFileURL(
    createRequire(from)
      .resolve("tsx/esm/api")
      .replace(/\.cjs$/, ".mjs"),
  ).href;
  const script = new URL(`./${name}.ts`, from).href;
  return new URL(
    `data:text/javascript,${encodeURIComponent(`import { register } from ${JSON.stringify(tsx)}; register(); await import(${JSON.stringify(script)});`)}`,
  );
}
