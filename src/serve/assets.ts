import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The built web app: one page, its entry script and the modules it imports, one stylesheet (shipped in the package under `dist/web/`). */
export interface WebAssets {
  html: string;
  /** The entry script, `/app.js`. */
  js: string;
  css: string;
  /** The modules the entry imports, by their path on the server (`/search-view.js`, `/shared/snippet-text.js`). */
  modules?: Record<string, string>;
  /** The files the page loads beside them, by their path on the server: KaTeX's stylesheet and fonts (`/katex/…`). */
  files?: Record<string, { body: Uint8Array<ArrayBuffer>; type: string }>;
}

/** The content types of the files under `katex/`; others there (its licence) are not served. */
const FILE_TYPES: Record<string, string> = { ".css": "text/css; charset=utf-8", ".woff2": "font/woff2" };

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
    const modules: Record<string, string> = {};
    const files: NonNullable<WebAssets["files"]> = {};
    for (const f of fs.readdirSync(dir, { recursive: true, encoding: "utf8" })) {
      const at = `/${f.split(path.sep).join("/")}`;
      const type = FILE_TYPES[path.extname(f)];
      if (f.endsWith(".js") && f !== "app.js") modules[at] = read(f);
      else if (at.startsWith("/katex/") && type) files[at] = { body: fs.readFileSync(path.join(dir, f)), type };
    }
    return { html: read("index.html"), js: read("app.js"), css: read("style.css"), modules, files };
  } catch (e) {
    const msg = `vault-rag: the web app is not built (${(e as Error).message}) — run \`npm run build\`; the API under /api works without it`;
    return { html: `<!doctype html><title>vault-rag</title><p>${msg.replace(/[<>&]/g, "")}</p>`, js: "", css: "" };
  }
}
