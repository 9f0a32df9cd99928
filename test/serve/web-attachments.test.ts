import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stopChildren } from "../support/children.js";
import { needs } from "../support/needs.js";
import { BIN, request, startServe, type Served } from "./helpers.js";

// a server a failed test left running (registered first, so it runs after the other afterAll hooks)
afterAll(stopChildren);

/** Debian's chromium package; CI installs it (.ci/run). */
const CHROMIUM = process.env.VAULT_RAG_CHROMIUM ?? "/usr/bin/chromium";
const missing = fs.existsSync(CHROMIUM)
  ? undefined
  : `needs Chromium at ${CHROMIUM} (apt-get install chromium, or set VAULT_RAG_CHROMIUM)`;
const PDF = path.resolve("test/fixtures/attachments/manual-3p.pdf");

let vault = "";
let s: Served;
let ctx: BrowserContext;
let page: Page;

describe.skipIf(!!missing)(needs("a PDF hit in the web app, in headless Chromium", missing), () => {
  beforeAll(async () => {
    vault = fs.mkdtempSync(path.join(os.tmpdir(), "vr-web-pdf-"));
    fs.mkdirSync(path.join(vault, "papers"));
    fs.copyFileSync(PDF, path.join(vault, "papers", "manual.pdf"));
    fs.writeFileSync(path.join(vault, "Greenhouse.md"), "# Greenhouse\n\nTomatoes grow in the greenhouse.\n");
    fs.writeFileSync(path.join(vault, "secret.md"), "# Secret\n\nNot an attachment.\n");
    fs.copyFileSync(path.resolve("test/fixtures/attachments/garden-plan.canvas"), path.join(vault, "plan.canvas"));
    expect(spawnSync(process.execPath, [BIN, "index", vault, "--quiet"]).status).toBe(0);
    // bound beyond loopback: the file is fetched with the token, as every API call
    s = await startServe(["--vault", vault, "--host", "0.0.0.0"]);
    ctx = await chromium.launchPersistentContext(fs.mkdtempSync(path.join(os.tmpdir(), "vr-chromium-")), {
      executablePath: CHROMIUM,
      headless: true,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
    });
    await ctx.route("**/*", (route) =>
      /^(http:\/\/127\.0\.0\.1:|blob:)/.test(route.request().url()) ? route.continue() : route.abort("blockedbyclient"),
    );
    page = await ctx.newPage();
    await page.goto(`${s.origin}/?token=${s.token}`);
    // the page sets the search box from the address once its filters are loaded, then focuses it:
    // text typed before that is cleared
    await page.waitForFunction(() => document.activeElement?.id === "q");
  }, 120_000);
  afterAll(async () => {
    await ctx?.close();
    await s?.stop();
  });

  it("shows a PDF hit as file.pdf:pN and opens the PDF in the viewer at #page=N", async () => {
    await page.fill("#q", "how long does one watering cycle last");
    await page.waitForSelector("#hits .hit");
    const first = page.locator("#hits .hit").first();
    expect(await first.locator(".meta code").textContent()).toBe("papers/manual.pdf:p2");
    await first.locator("a.hit-link").click();
    const frame = await page.waitForSelector("#note-text iframe#note-pdf");
    const src = (await frame.getAttribute("src"))!;
    expect(src).toMatch(/^blob:http:\/\/127\.0\.0\.1:\d+\/[0-9a-f-]+#page=2$/);
    // the frame is the browser's viewer of the PDF, at the page
    await expect.poll(() => page.frames().map((f) => f.url())).toContain(src);
    const pdfFrame = page.frames().find((f) => f.url() === src)!;
    await expect.poll(() => pdfFrame.evaluate(() => document.contentType).catch(() => "")).toBe("application/pdf");
    expect(await page.textContent("#note-path")).toBe("papers/manual.pdf");
  });

  it("shows a Canvas hit's card in the panel, with no error for a file that is no note", async () => {
    await page.fill("#q", "sow tomato seedlings indoors");
    const hit = page.locator("#hits .hit", { hasText: "plan.canvas:1" }).first();
    await hit.locator("a.hit-link").click();
    await expect.poll(() => page.textContent("#note-text")).toContain("Sow the tomato seedlings indoors");
    expect(await page.textContent("#note-path")).toBe("plan.canvas");
  });

  it("serves an attachment the walk lists, and nothing else, only with the token", async () => {
    const auth = { authorization: `Bearer ${s.token}` };
    const ok = await request(s.port, "/api/file?path=papers%2Fmanual.pdf", { headers: auth });
    expect(ok.status).toBe(200);
    expect(ok.headers["content-type"]).toBe("application/pdf");
    for (const bad of ["secret.md", "../etc/passwd", "papers/none.pdf", "/etc/hosts"])
      expect((await request(s.port, `/api/file?path=${encodeURIComponent(bad)}`, { headers: auth })).status).toBe(404);
    expect((await request(s.port, "/api/file?path=papers%2Fmanual.pdf")).status).toBe(401);
    // the HTTP API filters by file type, and gives each hit's type and page
    const r = await request(s.port, "/api/search?q=watering&type=pdf", { headers: auth });
    expect(r.json.hits.length).toBeGreaterThan(0);
    for (const h of r.json.hits) expect(h).toMatchObject({ path: "papers/manual.pdf", file_type: "pdf" });
    expect(r.json.hits[0].page).toBeGreaterThan(0);
  });
});
