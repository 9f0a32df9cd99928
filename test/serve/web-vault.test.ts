import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stopChildren } from "../support/children.js";
import { needs } from "../support/needs.js";
import { BIN, startServe, type Served } from "./helpers.js";

// a server a failed test left running (registered first, so it runs after the other afterAll hooks)
afterAll(stopChildren);

/** Debian's chromium package; CI installs it (.ci/run). */
const CHROMIUM = process.env.VAULT_RAG_CHROMIUM ?? "/usr/bin/chromium";
const missing = fs.existsSync(CHROMIUM)
  ? undefined
  : `needs Chromium at ${CHROMIUM} (apt-get install chromium, or set VAULT_RAG_CHROMIUM)`;
/** Screenshots go to docs/ when asked (VAULT_RAG_SCREENSHOTS=1), else to a temporary folder. */
const SHOTS = process.env.VAULT_RAG_SCREENSHOTS
  ? path.resolve("docs")
  : fs.mkdtempSync(path.join(os.tmpdir(), "vr-shots-"));

/** Folders as a Zettelkasten names them: long, numbered, nested. */
const FOLDERS = [
  "00-inbox",
  "01-fleeting-notes-and-quick-captures",
  "02-literature-notes/books-and-long-articles",
  "03-notes/01_permanent-notes/linear-algebra",
  "03-notes/01_permanent-notes/signal-processing",
  "03-notes/02_structure-notes-and-maps-of-content",
  "04-projects-active-and-archived/2025-thesis",
  "05-areas-of-responsibility",
  "06-resources-and-reference-material",
  "07-archive-of-everything-older",
  "08-templates-and-snippets",
  "09-daily-journal-entries-by-month",
];
const ALGEBRA = "03-notes/01_permanent-notes/linear-algebra";

/** A note on eigenvectors: math in its headings and prose, a long tag, its last section far down. */
const EIGENVECTOR = [
  "---",
  "tags: [linear-algebra, permanent_note_on_matrices_and_linear_transformations]",
  "aliases: [Eigenvalue]",
  "---",
  "# Eigenvector $\\rightarrow$ eigenvalue $\\lambda$",
  "",
  "An eigenvector of a square matrix $A$ is a nonzero vector $v$ with $A v = \\lambda v$, where the",
  "scalar $\\lambda$ is its eigenvalue. The eigenvalues are the roots of $\\det(A - \\lambda I) = 0$.",
  "",
  ...Array.from({ length: 6 }, (_, i) => [
    `## Worked example ${i + 1}`,
    "",
    `Example ${i + 1} walks through a two by two case by hand, line by line, with its arithmetic.`,
    "",
  ]).flat(),
  "## Diagonalisation $A = P D P^{-1}$",
  "",
  "A matrix with $n$ independent eigenvectors factors as $$A = P D P^{-1}$$ where the columns of $P$ are",
  "eigenvectors and $D = \\operatorname{diag}(\\lambda_1, \\dots, \\lambda_n)$ holds the spectrum diagonally.",
  "",
].join("\n");

/** A note whose only match lies past a long formula: its snippet is cut near that formula. */
const NORMS = [
  "# Matrix norms",
  "",
  `${"The spectral norm is the largest singular value of a matrix, and more words about it. ".repeat(3)}For a`,
  "symmetric matrix $\\|A\\|_2 = \\max_i |\\lambda_i| \\quad \\text{over all eigenvalues } \\lambda_i \\text{ of } A$",
  "which is the spectrum's radius.",
  "",
].join("\n");

let vault = "";
let s: Served;
let ctx: BrowserContext;
/** Requests for anything but the server under test: none may be made (no CDN, no fonts from elsewhere). */
const external: string[] = [];

/** A page at 400 × 900, as a phone shows it, with a search run from the address. */
async function narrowPage(q: string): Promise<Page> {
  const p = await ctx.newPage();
  await p.setViewportSize({ width: 400, height: 900 });
  await p.goto(`${s.origin}/?q=${encodeURIComponent(q)}`);
  await p.waitForSelector("#hits .hit");
  await p.waitForSelector("#folder-chips .chip");
  await p.evaluate(() => document.fonts.ready);
  return p;
}

describe.skipIf(!!missing)(needs("the web app in headless Chromium on a vault of long names and math", missing), () => {
  beforeAll(async () => {
    vault = fs.mkdtempSync(path.join(os.tmpdir(), "vr-web-vault-"));
    FOLDERS.forEach((f, i) => {
      fs.mkdirSync(path.join(vault, f), { recursive: true });
      fs.writeFileSync(
        path.join(vault, f, `Note ${i}.md`),
        `---\ntags: [zettel, subject-${i}]\n---\n# Note ${i}\n\nA filler note about topic ${i} in ${f}.\n`,
      );
    });
    fs.writeFileSync(path.join(vault, ALGEBRA, "Eigenvector.md"), EIGENVECTOR);
    fs.writeFileSync(path.join(vault, ALGEBRA, "Matrix norms.md"), NORMS);
    const r = spawnSync(process.execPath, [BIN, "index", vault, "--quiet"], { encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    s = await startServe(["--vault", vault]);
    ctx = await chromium.launchPersistentContext(fs.mkdtempSync(path.join(os.tmpdir(), "vr-chromium-")), {
      executablePath: CHROMIUM,
      headless: true,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
    });
    await ctx.route("**/*", (route) => {
      if (route.request().url().startsWith(`${s.origin}/`)) return route.continue();
      external.push(route.request().url());
      return route.abort("blockedbyclient");
    });
  });
  afterAll(async () => {
    await ctx?.close();
    await s?.stop();
  });

  it("fits the results list in a 400 px window: no hit, tag or snippet is wider than the window", async () => {
    const p = await narrowPage("eigenvalues of a matrix");
    const sizes = await p.evaluate(() => ({
      page: document.documentElement.scrollWidth,
      list: document.getElementById("hits")!.getBoundingClientRect().right,
      // every element of the hits that reaches past the window's right edge
      past: [...document.querySelectorAll<HTMLElement>("#hits *")]
        .filter((e) => !e.closest(".math") && e.getBoundingClientRect().right > 400)
        .map((e) => `${e.tagName}.${e.className}: ${Math.round(e.getBoundingClientRect().right)}`),
      clipped: [...document.querySelectorAll<HTMLElement>("#hits .snippet")].filter(
        (e) => e.scrollWidth > e.clientWidth,
      ).length,
    }));
    await p.screenshot({ path: path.join(SHOTS, "search-400px-vault.png") });
    expect(sizes).toEqual({ page: 400, list: expect.any(Number), past: [], clipped: 0 });
    expect(sizes.list).toBeLessThanOrEqual(400);
    await p.close();
  });

  it("keeps each row of filter chips on one row that scrolls sideways, the first hit above the fold at 400×900", async () => {
    const p = await narrowPage("eigenvalues of a matrix");
    const rows = await p.$$eval(".chips", (boxes) =>
      boxes.map((b) => ({
        id: b.id,
        tops: new Set([...b.children].map((c) => Math.round(c.getBoundingClientRect().top))).size,
        scrolls: b.scrollWidth > b.clientWidth,
        right: b.getBoundingClientRect().right,
      })),
    );
    expect(rows.map((r) => [r.id, r.tops])).toEqual([
      ["tag-chips", 1],
      ["folder-chips", 1],
      ["date-chips", 1],
    ]);
    // the folders do not fit: they scroll within their row, which stays inside the window
    expect(rows.find((r) => r.id === "folder-chips")!.scrolls).toBe(true);
    for (const r of rows) expect(r.right).toBeLessThanOrEqual(400);
    const first = await p.$eval("#hits .hit", (li) => {
      const box = (sel: string) => li.querySelector(sel)!.getBoundingClientRect();
      return { top: box(".hit-link").top, snippetBottom: box(".snippet").bottom };
    });
    expect(first.top).toBeGreaterThan(0);
    // its breadcrumb and whole snippet show without scrolling
    expect(first.snippetBottom).toBeLessThanOrEqual(900);
    // and a folder chip beyond the window's edge is reached by scrolling its row
    const last = p.locator("#folder-chips .chip").last();
    await last.scrollIntoViewIfNeeded();
    expect(await last.evaluate((e) => e.getBoundingClientRect().right)).toBeLessThanOrEqual(400);
    await p.close();
  });

  it("renders $…$ and $$…$$ in breadcrumbs and snippets with the bundled KaTeX, never as raw TeX", async () => {
    const p = await narrowPage("eigenvalues of a matrix spectrum radius");
    const shown = await p.evaluate(() => {
      const outside = (e: Element) => {
        const w = document.createTreeWalker(e, NodeFilter.SHOW_TEXT);
        let text = "";
        for (let n = w.nextNode(); n; n = w.nextNode()) if (!n.parentElement!.closest(".katex")) text += n.textContent;
        return text;
      };
      const parts = [...document.querySelectorAll("#hits .crumb, #hits .snippet")];
      return {
        crumbMath: document.querySelectorAll("#hits .crumb .katex").length,
        snippetMath: document.querySelectorAll("#hits .snippet .katex").length,
        raw: parts.map(outside).filter((t) => /\$|\\[a-zA-Z]+/.test(t)),
        font: getComputedStyle(document.querySelector("#hits .katex")!).fontFamily,
        fonts: [...document.fonts].filter((f) => f.status === "loaded").map((f) => f.family),
      };
    });
    expect(shown.crumbMath).toBeGreaterThan(0);
    expect(shown.snippetMath).toBeGreaterThan(0);
    // nothing of TeX outside a rendered formula: no `$`, no `\rightarrow`, no formula cut in two
    expect(shown.raw).toEqual([]);
    // KaTeX's stylesheet and fonts, served by vault-rag itself
    expect(shown.font).toMatch(/KaTeX_Main/);
    expect(shown.fonts).toContain("KaTeX_Math");
    // the snippet cut near the long formula shows the whole of it, as written (`\|`, not `|`)
    const norms = await p.$$eval("#hits .hit", (lis) =>
      lis
        .filter((li) => li.querySelector(".meta code")!.textContent!.includes("Matrix norms.md"))
        .map((li) => [...li.querySelectorAll(".snippet .katex annotation")].map((a) => a.textContent)),
    );
    expect(norms).toEqual([
      ["\\|A\\|_2 = \\max_i |\\lambda_i| \\quad \\text{over all eigenvalues } \\lambda_i \\text{ of } A"],
    ]);
    await p.screenshot({ path: path.join(SHOTS, "search-math.png") });
    expect(external).toEqual([]);
    await p.close();
  });

  it("opens a hit with its note expanded and scrolled to the hit, its lines marked", async () => {
    const p = await narrowPage("diagonalisation independent eigenvectors");
    const hit = await p.$eval("#hits .hit", (li) => li.querySelector(".meta code")!.textContent!);
    expect(hit).toMatch(/Eigenvector\.md:\d+$/);
    await p.click("#hits .hit-link >> nth=0");
    await p.waitForSelector("#note-hit");
    const lines = EIGENVECTOR.split("\n");
    const start = Number(hit.split(":").pop());
    const shown = await p.evaluate(() => {
      const box = document.getElementById("note-text")!.getBoundingClientRect();
      const mark = document.getElementById("note-hit")!;
      const at = mark.getBoundingClientRect();
      return {
        open: (document.getElementById("note-text-box") as HTMLDetailsElement).open,
        marked: mark.textContent!,
        scrolled: document.getElementById("note-text")!.scrollTop,
        // the hit's lines show within the note's box, and their start within the window
        hitInBox: at.top >= box.top && at.bottom <= box.bottom + 1,
        hitInView: at.top >= 0 && at.bottom <= window.innerHeight,
      };
    });
    expect(shown.open).toBe(true);
    expect(shown.marked.split("\n")[0]).toBe(lines[start - 1]);
    expect(shown.marked).toContain("## Diagonalisation $A = P D P^{-1}$");
    expect(shown.scrolled).toBeGreaterThan(0);
    expect(shown.hitInBox).toBe(true);
    expect(shown.hitInView).toBe(true);
    await p.screenshot({ path: path.join(SHOTS, "note-at-hit.png") });
    await p.close();
  });
});

describe("KaTeX served with the web app", () => {
  it("serves its module, stylesheet and fonts from the build, without the token a wide server asks for the API", async () => {
    const wide = await startServe(["--vault", path.resolve("examples/vault"), "--host", "0.0.0.0"]);
    try {
      const get = (at: string) => fetch(`${wide.origin}${at}`);
      const font = await get("/katex/fonts/KaTeX_Main-Regular.woff2");
      expect([font.status, font.headers.get("content-type")]).toEqual([200, "font/woff2"]);
      expect(
        Buffer.from(await font.arrayBuffer()).equals(
          fs.readFileSync("node_modules/katex/dist/fonts/KaTeX_Main-Regular.woff2"),
        ),
      ).toBe(true);
      const css = await get("/katex/katex.min.css");
      expect([css.status, css.headers.get("content-type")]).toEqual([200, "text/css; charset=utf-8"]);
      expect(await css.text()).toContain("url(fonts/KaTeX_Main-Regular.woff2)");
      const js = await get("/katex.js");
      expect([js.status, js.headers.get("content-type")]).toEqual([200, "text/javascript; charset=utf-8"]);
      expect(await js.text()).toBe(fs.readFileSync("node_modules/katex/dist/katex.mjs", "utf8"));
      // the page's policy lets it load them, and nothing from elsewhere
      expect((await get("/")).headers.get("content-security-policy")).toMatch(/font-src 'self';/);
      // the API still asks for the token; the licence beside the fonts is not served
      expect((await get("/api/tags")).status).toBe(401);
      expect((await get("/katex/LICENSE")).status).not.toBe(200);
    } finally {
      await wide.stop();
    }
  });
});
