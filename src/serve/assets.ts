import fs from "node:fs";
import { fileURLToPath } from "node:url";

/** The built web app: one page, one script, one stylesheet (shipped in the package under `dist/web/`). */
export interface WebAssets {
  html: string;
  js: string;
  css: string;
}

/** Where the built web app lives: `dist/web/`, beside this module's folder. */
export const WEB_DIR = fileURLToPath(new URL("../web/", import.meta.url));

/**
 * Reads the built web app once, at start-up. A missing build is a page that says how to build it,
 * not a crash: the API works without it.
 *
 * @example
 * ```ts
 * loadAssets().html.startsWith("<!doctype html>"); // true
 * ```
 */
export function loadAssets(dir: string = WEB_DIR): WebAssets {
  const read = (f: string) => fs.readFileSync(new URL(f, `file://${dir.endsWith("/") ? dir : dir + "/"}`), "utf8");
  try {
    return { html: read("index.html"), js: read("app.js"), css: read("style.css") };
  } catch (e) {
    const msg = `vault-rag: the web app is not built (${(e as Error).message}) — run \`npm run build\`; the API under /api works without it`;
    return { html: `<!doctype html><title>vault-rag</title><p>${msg.replace(/[<>&]/g, "")}</p>`, js: "", css: "" };
  }
}
