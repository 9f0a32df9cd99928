// Lays out the web app built by `tsc -p web/tsconfig.json` (into dist/web-build/) as the browser
// loads it: web/*.js at dist/web/, the modules it shares with the server (src/shared) under
// dist/web/shared/, where web/app.ts's "./shared/…" imports find them; then the page and stylesheet;
// then KaTeX, bundled (no CDN): its module as dist/web/katex.js (web/math.ts imports "./katex.js"),
// its stylesheet and WOFF2 fonts under dist/web/katex/, with its licence.
import fs from "node:fs";

const built = "dist/web-build";
fs.rmSync("dist/web", { recursive: true, force: true });
fs.mkdirSync("dist/web/shared", { recursive: true });
for (const f of fs.readdirSync(`${built}/web`)) fs.copyFileSync(`${built}/web/${f}`, `dist/web/${f}`);
for (const f of fs.readdirSync(`${built}/src/shared`))
  fs.copyFileSync(`${built}/src/shared/${f}`, `dist/web/shared/${f}`);
fs.rmSync(built, { recursive: true, force: true });
for (const f of ["index.html", "style.css"]) fs.copyFileSync(`web/${f}`, `dist/web/${f}`);

const katex = "node_modules/katex";
fs.mkdirSync("dist/web/katex/fonts", { recursive: true });
fs.copyFileSync(`${katex}/dist/katex.mjs`, "dist/web/katex.js");
fs.copyFileSync(`${katex}/dist/katex.min.css`, "dist/web/katex/katex.min.css");
fs.copyFileSync(`${katex}/LICENSE`, "dist/web/katex/LICENSE");
// the stylesheet names each font as WOFF2 first, which every browser the page supports reads
for (const f of fs.readdirSync(`${katex}/dist/fonts`))
  if (f.endsWith(".woff2")) fs.copyFileSync(`${katex}/dist/fonts/${f}`, `dist/web/katex/fonts/${f}`);
