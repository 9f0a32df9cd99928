// Lays out the web app built by `tsc -p web/tsconfig.json` (into dist/web-build/) as the browser
// loads it: web/*.js at dist/web/, the modules it shares with the server (src/shared) under
// dist/web/shared/, where web/app.ts's "./shared/…" imports find them; then the page and stylesheet.
import fs from "node:fs";

const built = "dist/web-build";
fs.rmSync("dist/web", { recursive: true, force: true });
fs.mkdirSync("dist/web/shared", { recursive: true });
for (const f of fs.readdirSync(`${built}/web`)) fs.copyFileSync(`${built}/web/${f}`, `dist/web/${f}`);
for (const f of fs.readdirSync(`${built}/src/shared`))
  fs.copyFileSync(`${built}/src/shared/${f}`, `dist/web/shared/${f}`);
fs.rmSync(built, { recursive: true, force: true });
for (const f of ["index.html", "style.css"]) fs.copyFileSync(`web/${f}`, `dist/web/${f}`);
