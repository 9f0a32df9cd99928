import { spawnSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stopChildren } from "../support/children.js";
import { copyVaultWithoutIndex, exampleVaultCopy } from "../e2e/helpers.js";
import { startLlmStub, type LlmStub } from "../support/llm-stub.js";
import { needs } from "../support/needs.js";
import { BIN, request, startServe, type Served } from "./helpers.js";

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

let vault = "";
let stub: LlmStub;
let s: Served;
let ctx: BrowserContext;
let page: Page;
const api = async (target: string) => (await request(s.port, target)).json;

async function freshPage(width = 1200, colorScheme: "light" | "dark" = "light"): Promise<Page> {
  const p = await ctx.newPage();
  await p.setViewportSize({ width, height: 860 });
  await p.emulateMedia({ colorScheme });
  await p.goto(`${s.origin}/`);
  await p.waitForSelector("#tag-chips .chip");
  return p;
}

/** Waits until the list at `selector` shows these notes, in this order (by their `path:line` lines). */
const untilListed = (p: Page, selector: string, paths: string[]) =>
  p.waitForFunction(
    ([sel, want]) =>
      JSON.stringify([...document.querySelectorAll(sel)].map((e) => e.textContent!.split(":")[0])) ===
      JSON.stringify(want),
    [selector, paths] as const,
  );

/** Texts of the hits on the page, as their `path:line` lines. */
const shownPaths = (p: Page) =>
  p.$$eval("#hits .hit .meta code", (els) => els.map((e) => e.textContent!.split(":")[0]));

describe.skipIf(!!missing)(needs("the web app in headless Chromium", missing), () => {
  beforeAll(async () => {
    ({ vault } = exampleVaultCopy("vr-serve-web-"));
    // a file name with a bidi override, which would show the rest of its hit's line backwards
    fs.writeFileSync(path.join(vault, "kitchen", "\u202eRTL quokka.md"), "# Quokka\n\nQuokka notes about zebrafish.\n");
    fs.writeFileSync(
      path.join(vault, "kitchen", "Pantry.md"),
      "# Pantry\n\nRice, lentils and oats in the top drawer.\n\n<!-- reorder the capybara tins -->\n",
    );
    expect(spawnSync(process.execPath, [BIN, "index", vault, "--quiet"]).status).toBe(0);
    stub = await startLlmStub();
    s = await startServe(["--vault", vault, "--llm", "ollama:slow"], { OLLAMA_HOST: stub.base });
    ctx = await chromium.launchPersistentContext(fs.mkdtempSync(path.join(os.tmpdir(), "vr-chromium-")), {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
    // nothing but the servers under test may be fetched: no CDN, no fonts, nothing at run time
    await ctx.route("**/*", (route) =>
      route.request().url().startsWith("http://127.0.0.1:") ? route.continue() : route.abort("blockedbyclient"),
    );
    page = await freshPage();
  });
  afterAll(async () => {
    await ctx?.close();
    await s?.stop();
    await stub?.close();
  });

  it("searches as you type and shows breadcrumb, highlighted terms, path:line and an Obsidian link", async () => {
    const external: string[] = [];
    page.on("request", (r) => !r.url().startsWith(s.origin) && external.push(r.url()));
    await page.click("h1");
    await page.keyboard.press("/");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("q");
    await page.keyboard.type("motor driver");
    await page.waitForSelector("#hits .hit mark");
    const marks = await page.$$eval("#hits mark", (els) => els.map((e) => e.textContent!.toLowerCase()));
    expect(marks.length).toBeGreaterThan(0);
    // the words as the CLI marks them, a plural with its word
    for (const m of marks) expect(["motor", "motors", "driver", "drivers"]).toContain(m);
    const first = await page.$eval("#hits .hit", (li) => ({
      crumb: li.querySelector(".crumb")!.textContent,
      where: li.querySelector(".meta code")!.textContent,
      link: li.querySelector<HTMLAnchorElement>("a.obsidian")!.href,
    }));
    const hits = (await api("/api/search?q=motor+driver&top_k=12")).hits;
    expect(first.crumb).toBe(hits[0].label);
    expect(first.where).toBe(`${hits[0].path}:${hits[0].start_line}`);
    expect(first.link).toBe(
      `obsidian://open?vault=vault&file=${encodeURIComponent(hits[0].path.replace(/\.md$/, ""))}`,
    );
    expect(await shownPaths(page)).toEqual(hits.map((h: any) => h.path));
    await page.screenshot({ path: path.join(SHOTS, "search-light.png") });
    const dark = await freshPage(1200, "dark");
    await dark.fill("#q", "motor driver");
    await dark.waitForSelector("#hits .hit mark");
    expect(await dark.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe("rgb(22, 23, 27)");
    await dark.screenshot({ path: path.join(SHOTS, "search-dark.png") });
    await dark.close();
    expect(external).toEqual([]);
  });

  it("names the synonyms a search also matched, and highlights them in the snippets", async () => {
    const p = await freshPage();
    await p.fill("#q", "vacation");
    await p.waitForSelector("#hits .hit");
    const r = await api("/api/search?q=vacation&top_k=12");
    expect(r.expansion.phrases).toContain("holiday");
    await p.waitForFunction(() => /also matching/.test(document.getElementById("result-state")!.textContent!));
    expect(await p.textContent("#result-state")).toMatch(/^\d+ passages, also matching “holiday”/);
    const marks = await p.$$eval("#hits mark", (els) => els.map((e) => e.textContent!.toLowerCase()));
    expect(marks).toContain("holiday");
    expect(await shownPaths(p)).toEqual(r.hits.map((h: { path: string }) => h.path));
    await p.screenshot({ path: path.join(SHOTS, "search-synonyms.png") });
    // a search whose words all meet in a passage names nothing more
    await p.fill("#q", "motor driver");
    await p.waitForFunction(() => /^\d+ passages$/.test(document.getElementById("result-state")!.textContent!));
    await p.close();
  });

  it("shows snippets as the rendered note reads: a wikilink as its shown text, table cells apart", async () => {
    const p = await freshPage();
    await p.fill("#q", "raised bed watering every 2 days");
    await p.waitForSelector("#hits .hit");
    const snippets = await p.$$eval("#hits .hit .snippet", (els) => els.map((e) => e.textContent!));
    const watering = snippets.find((t) => t.includes("Raised bed 1"));
    expect(watering).toMatch(/Raised bed 1 · the tomatoes · every 2 days · 10 L/);
    for (const t of snippets) expect(t).not.toMatch(/\[\[|\]\(|\| ---/);
    await p.close();
  });

  it("shows a comment's words in the snippet when the query matched only there", async () => {
    const p = await freshPage();
    await p.fill("#q", "capybara");
    await p.waitForSelector("#hits .hit");
    const snippets = await p.$$eval("#hits .hit .snippet", (els) => els.map((e) => e.textContent!));
    expect(snippets[0]).toBe("Rice, lentils and oats in the top drawer. reorder the capybara tins");
    // a query the visible text matches leaves the comment out
    await p.fill("#q", "lentils capybara");
    await p.waitForFunction(
      () => !/capybara/.test(document.querySelector("#hits .hit .snippet")?.textContent ?? "capybara"),
    );
    await p.close();
  });

  it("shows a bidi override in a file name as an escape, so the hit's line reads as written", async () => {
    const p = await freshPage();
    await p.fill("#q", "quokka zebrafish");
    await p.waitForSelector("#hits .hit");
    expect((await shownPaths(p))[0]).toBe("kitchen/\\u202eRTL quokka.md");
    await p.close();
  });

  it("narrows to the vault's root with its folder chip, and widens again when it is pressed off", async () => {
    const p = await freshPage();
    await p.fill("#q", "notes");
    await p.waitForSelector("#hits .hit");
    const root = p.locator("#folder-chips .chip", { hasText: /^\(vault root\)$/ });
    const want = (await api("/api/search?q=notes&top_k=12&folder=")).hits.map((h: any) => h.path);
    expect(want.length).toBeGreaterThan(0);
    for (const path of want) expect(path).not.toContain("/");
    const answered = p.waitForResponse((r) => r.url().includes("/api/search?") && r.url().includes("folder="));
    await root.click();
    await answered;
    expect(await root.getAttribute("aria-pressed")).toBe("true");
    await untilListed(p, "#hits .hit .meta code", want);
    const widened = p.waitForResponse((r) => r.url().includes("/api/search?") && !r.url().includes("folder="));
    await root.click();
    await widened;
    expect(await root.getAttribute("aria-pressed")).toBe("false");
    // the same from "More folders…"
    const picked = p.waitForResponse((r) => r.url().includes("/api/search?") && r.url().includes("folder="));
    await p.selectOption('#folder-chips select[aria-label="More folders"]', { value: "/" });
    await picked;
    expect(await p.locator("#folder-chips .chip", { hasText: /^\(vault root\)$/ }).getAttribute("aria-pressed")).toBe(
      "true",
    );
    await p.close();
  });

  it("keeps the search in the address: a link with ?q= and filters runs it, typing updates it, a reload shows it again", async () => {
    const p = await ctx.newPage();
    await p.goto(`${s.origin}/?q=motor+driver&tag=electronics`);
    await p.waitForSelector("#hits .hit");
    expect(await p.inputValue("#q")).toBe("motor driver");
    const chip = p.locator("#tag-chips .chip", { hasText: /^#electronics$/ });
    expect(await chip.getAttribute("aria-pressed")).toBe("true");
    const want = (await api("/api/search?q=motor+driver&top_k=12&tag=electronics")).hits.map((h: any) => h.path);
    expect(await shownPaths(p)).toEqual(want);
    await p.fill("#q", "sourdough starter");
    await p.waitForFunction(() => new URL(location.href).searchParams.get("q") === "sourdough starter");
    expect(new URL(p.url()).searchParams.getAll("tag")).toEqual(["electronics"]);
    await chip.click();
    await p.waitForFunction(() => !new URL(location.href).searchParams.has("tag"));
    await p.reload();
    await p.waitForSelector("#hits .hit");
    expect(await p.inputValue("#q")).toBe("sourdough starter");
    expect(await shownPaths(p)).toEqual(
      (await api("/api/search?q=sourdough+starter&top_k=12")).hits.map((h: any) => h.path),
    );
    await p.close();
  });

  it("narrows to a tag with its chip, and widens again when the chip is pressed off", async () => {
    const before = await shownPaths(page);
    const chip = page.locator("#tag-chips .chip", { hasText: /^#electronics$/ });
    const want = (await api("/api/search?q=motor+driver&top_k=12&tag=electronics")).hits;
    const answered = page.waitForResponse((r) => r.url().includes("tag=electronics"));
    await chip.click();
    await answered;
    expect(await chip.getAttribute("aria-pressed")).toBe("true");
    await untilListed(
      page,
      "#hits .hit .meta code",
      want.map((h: any) => h.path),
    );
    for (const h of want) expect(h.tags).toContain("electronics");
    expect(want.map((h: any) => h.path)).not.toEqual(before);
    const widened = page.waitForResponse((r) => r.url().includes("/api/search?") && !r.url().includes("tag="));
    await chip.click();
    await widened;
    expect(await chip.getAttribute("aria-pressed")).toBe("false");
    await untilListed(page, "#hits .hit .meta code", before);
  });

  it("presses a tag's own chip for a tag in the address written in another case or with its #", async () => {
    const p = await freshPage();
    await p.goto(`${s.origin}/?q=power&tag=${encodeURIComponent("#Pico")}`);
    await p.waitForSelector("#hits .hit");
    const chips = await p.$$eval("#tag-chips .chip", (els) =>
      els.map((e) => [e.textContent, e.getAttribute("aria-pressed")]),
    );
    expect(chips.filter(([, pressed]) => pressed === "true")).toEqual([["#pico", "true"]]);
    expect(chips.filter(([label]) => /pico/i.test(label!))).toHaveLength(1);
    expect(await p.evaluate(() => location.search)).toBe("?q=power&tag=pico");
    await p.close();
  });

  it("opens the Related panel for the selected note, with the same list as the API", async () => {
    await page.click("#hits .hit-link >> nth=0");
    await page.waitForSelector("#related-list li");
    const selected = await page.$eval("#note-path", (e) => e.textContent!);
    const want = (await api(`/api/related?path=${encodeURIComponent(selected)}&k=6`)).related;
    const shown = await page.$$eval("#related-list li .meta code", (els) =>
      els.map((e) => e.textContent!.split(":")[0]),
    );
    expect(shown).toEqual(want.map((n: any) => n.path));
    expect(await page.$eval("#related-list li .pair", (e) => e.textContent)).toMatch(/This note: .+That note: /s);
    await page.check("#unlinked");
    const unlinked = (await api(`/api/related?path=${encodeURIComponent(selected)}&k=6&unlinked_only=true`)).related;
    await untilListed(
      page,
      "#related-list li .meta code",
      unlinked.map((n: any) => n.path),
    );
    expect(await page.$$eval("#related-list .badge", (els) => els.length)).toBe(0);
    await page.uncheck("#unlinked");
    await page.waitForSelector("#related-list .badge");
    await page.screenshot({ path: path.join(SHOTS, "related-light.png") });
    const dark = await freshPage(1200, "dark");
    await dark.fill("#q", "motor driver");
    await dark.waitForSelector("#hits .hit mark");
    await dark.click("#hits .hit-link >> nth=0");
    await dark.waitForSelector("#related-list li");
    expect(await dark.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe("rgb(22, 23, 27)");
    await dark.screenshot({ path: path.join(SHOTS, "related-dark.png") });
    await dark.close();
  });

  it("asks a question, streaming the answer, with [n] citations that link to their sources", async () => {
    await page.click("#tab-ask");
    await page.fill("#question", "why did the SMARS motors cut out on long runs?");
    await page.click("#ask-button");
    // the stub sends three pieces 200 ms apart: the first shows before the last has been sent
    await page.waitForFunction(() => document.querySelector("#answer")!.textContent!.includes("overheated"));
    expect(await page.$eval("#answer", (e) => e.textContent)).not.toContain("TB6612FNG");
    await page.waitForSelector("#answer a.cite");
    expect(await page.$eval("#answer", (e) => e.textContent)).toBe(
      "The DRV8833 overheated on carpet, so it was swapped for a TB6612FNG [1].",
    );
    const cite = page.locator("#answer a.cite");
    expect(await cite.getAttribute("href")).toBe("#source-1");
    await cite.click();
    expect(new URL(page.url()).hash).toBe("#source-1");
    expect(await page.$eval("#source-1", (e) => e.textContent)).toContain("daily/2026-03-14.md");
    await page.screenshot({ path: path.join(SHOTS, "ask-light.png") });
    const dark = await freshPage(1200, "dark");
    await dark.click("#tab-ask");
    await dark.fill("#question", "why did the SMARS motors cut out on long runs?");
    await dark.press("#question", "Enter");
    await dark.waitForSelector("#answer a.cite");
    await dark.screenshot({ path: path.join(SHOTS, "ask-dark.png") });
    await dark.close();
    await page.click("#tab-search");
  });

  it("keeps the token of a server bound beyond loopback from the host's other ports: no cookie carries it, the page sends it", async () => {
    // another service on this host, on another port, which notes every header a browser sends it
    const sent: string[] = [];
    const other = http.createServer((req, res) => {
      sent.push(JSON.stringify(req.headers));
      res.end("another service");
    });
    await new Promise<void>((r) => other.listen(0, "127.0.0.1", () => r()));
    const wide = await startServe(["--vault", vault, "--host", "0.0.0.0", "--llm", "ollama:slow"], {
      OLLAMA_HOST: stub.base,
    });
    const p = await ctx.newPage();
    try {
      await p.goto(`http://127.0.0.1:${wide.port}/?token=${wide.token}`);
      // the API answered the page (its tags, an answer), and the token left the address bar
      await p.waitForSelector("#tag-chips .chip");
      expect(p.url()).toBe(`http://127.0.0.1:${wide.port}/`);
      await p.reload();
      await p.waitForSelector("#tag-chips .chip");
      await p.click("#tab-ask");
      await p.fill("#question", "why did the SMARS motors cut out on long runs?");
      await p.click("#ask-button");
      await p.waitForSelector("#answer a.cite");
      await p.goto(`http://127.0.0.1:${(other.address() as net.AddressInfo).port}/`);
      expect(await p.textContent("body")).toBe("another service");
      expect(sent.length).toBeGreaterThan(0);
      for (const headers of sent) expect(headers).not.toContain(wide.token!);
    } finally {
      await p.close();
      await wide.stop();
      other.closeAllConnections();
      await new Promise((r) => other.close(r));
    }
  });

  it("says what may fix a search that found nothing: a folder named in another case, from the address", async () => {
    const p = await freshPage();
    await p.goto(`${s.origin}/?q=sourdough&folder=Kitchen`);
    await p.waitForFunction(() => /did you mean/.test(document.getElementById("result-state")!.textContent!));
    expect(await p.$eval("#result-state", (e) => e.textContent)).toBe(
      'No results for “sourdough”: no chunk passes the filters. vault-rag: no folder "Kitchen" in the index — did you mean the folder "kitchen"?',
    );
    await p.close();
  });

  it("marks hits from notes changed or deleted since the last index, and says so beside the count", async () => {
    fs.writeFileSync(path.join(vault, "kitchen", "Larder.md"), "# Larder\n\nMarmalade on the top shelf.\n");
    fs.writeFileSync(path.join(vault, "kitchen", "Jam.md"), "# Jam\n\nSeville orange marmalade, a winter batch.\n");
    expect(spawnSync(process.execPath, [BIN, "index", vault, "--quiet"]).status).toBe(0);
    const later = new Date(Date.now() + 60_000);
    fs.writeFileSync(path.join(vault, "kitchen", "Larder.md"), "# Larder\n\nThe marmalade is gone.\n");
    fs.utimesSync(path.join(vault, "kitchen", "Larder.md"), later, later);
    fs.rmSync(path.join(vault, "kitchen", "Jam.md"));
    try {
      const p = await freshPage();
      await p.goto(`${s.origin}/?q=marmalade`);
      await p.waitForSelector("#hits .hit .stale");
      const marks = await p.$$eval("#hits .hit", (els) =>
        els.map((li) => [
          li.querySelector(".meta code")!.textContent!.split(":")[0],
          li.querySelector(".stale")?.textContent,
        ]),
      );
      // the other hits (the dense list's nearest notes) carry no mark
      expect(marks.filter(([, mark]) => mark).sort()).toEqual([
        ["kitchen/Jam.md", "deleted since indexed"],
        ["kitchen/Larder.md", "changed since indexed"],
      ]);
      const shown = (await api("/api/search?q=marmalade&top_k=12")).hits.length;
      expect(await p.$eval("#result-state", (e) => e.textContent)).toBe(
        `${shown} passages — 1 note changed and 1 note deleted since the last index, marked below (run vault-rag index to refresh)`,
      );
      await p.close();
    } finally {
      fs.rmSync(path.join(vault, "kitchen", "Larder.md"));
      expect(spawnSync(process.execPath, [BIN, "index", vault, "--quiet"]).status).toBe(0);
    }
  });

  it("says why an ask found no sources and what may fix it: a tag no note has, from the address", async () => {
    const p = await freshPage();
    await p.goto(`${s.origin}/?tag=bakingg`);
    await p.click("#tab-ask");
    await p.fill("#question", "what to bake");
    await p.click("#ask-button");
    await p.waitForFunction(() => /closest tags/.test(document.getElementById("ask-state")!.textContent!));
    expect(await p.$eval("#ask-state", (e) => e.textContent)).toBe(
      'No sources: no chunk passes the filters. vault-rag: no note has the tag "bakingg" — closest tags: "baking"',
    );
    expect(await p.$eval("#answer", (e) => e.textContent)).toBe(
      "The notes contain nothing that matches this question.",
    );
    await p.close();
  });

  it("flags a citation of a source that was not given, and says so when an answer is cut off by the server going away", async () => {
    for (const [model, check] of [
      [
        "bad-cite",
        async (p: Page) => {
          await p.waitForSelector("#answer mark.cite-invalid");
          expect(await p.$eval("#answer mark.cite-invalid", (e) => e.textContent)).toBe("[9]");
          expect(await p.$eval("#ask-state", (e) => e.textContent)).toMatch(
            /^The answer cites \[9\], but only \d+ sources? (was|were) given\.$/,
          );
        },
      ],
      [
        "group-cite",
        async (p: Page) => {
          await p.waitForSelector("#answer mark.cite-invalid");
          expect(await p.$eval("#answer", (e) => e.innerHTML)).toBe(
            'The N20 motors stall [<a href="#source-1" class="cite">1</a>, <mark class="cite-invalid" title="no source [9] was given">9</mark>].',
          );
        },
      ],
      [
        "slow",
        async (p: Page, other: Served) => {
          await p.waitForFunction(() => document.querySelector("#answer")!.textContent!.includes("overheated"));
          await other.stop();
          await p.waitForFunction(() =>
            /^vault-rag: the answer stopped before it finished/.test(
              document.querySelector("#ask-state")!.textContent!,
            ),
          );
          expect(await p.$eval("#ask-state", (e) => e.textContent)).toMatch(/— what is shown is its start$/);
        },
      ],
    ] as const) {
      const other = await startServe(["--vault", vault, "--llm", `ollama:${model}`], { OLLAMA_HOST: stub.base });
      const p = await ctx.newPage();
      await p.goto(`${other.origin}/`);
      await p.waitForSelector("#tag-chips .chip");
      await p.click("#tab-ask");
      await p.fill("#question", "why did the SMARS motors cut out on long runs?");
      await p.click("#ask-button");
      await check(p, other);
      await p.close();
      await other.stop();
    }
  });

  it("works with the keyboard alone: / to search, arrows between hits, Enter to open, tabs by arrow keys", async () => {
    const p = await freshPage();
    expect(await p.evaluate(() => document.activeElement!.id)).toBe("q"); // focused on load
    await p.keyboard.press("Tab"); // away from the search box, to the first chip
    expect(await p.evaluate(() => document.activeElement!.className)).toBe("chip");
    await p.keyboard.press("/");
    await p.keyboard.type("sourdough starter");
    await p.waitForSelector("#hits .hit-link");
    const focused = () =>
      p.evaluate(() => (document.activeElement as HTMLElement).dataset.index ?? document.activeElement!.id);
    await p.keyboard.press("ArrowDown");
    expect(await focused()).toBe("0");
    await p.keyboard.press("ArrowDown");
    expect(await focused()).toBe("1");
    await p.keyboard.press("ArrowUp");
    expect(await focused()).toBe("0");
    // the focused hit shows a visible focus ring
    expect(await p.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)).toBe("solid");
    await p.keyboard.press("Enter");
    await p.waitForSelector("#related-list li");
    expect(await p.$eval("#note-path", (e) => e.textContent)).toBe(
      await p.$eval("#hits .hit-link >> nth=0", (e) => e.getAttribute("data-path")),
    );
    await p.keyboard.press("Escape");
    expect(await focused()).toBe("q");
    await p.keyboard.press("Shift+Tab");
    expect(await focused()).toBe("tab-search");
    await p.keyboard.press("ArrowRight");
    expect(await focused()).toBe("tab-ask");
    expect(await p.isVisible("#view-ask")).toBe(true);
    await p.keyboard.press("Tab");
    expect(await focused()).toBe("question");
    await p.keyboard.type("why did the motors cut out");
    await p.keyboard.press("Enter");
    await p.waitForSelector("#answer a.cite");
    await p.close();
  });

  it("labels every control and fits a 400 px wide window", async () => {
    const p = await freshPage(400);
    const unlabelled = await p.$$eval("input, select, button", (els) =>
      els
        .filter((e) => {
          const named =
            e.getAttribute("aria-label") ||
            (e as HTMLInputElement).labels?.length ||
            (e.tagName === "BUTTON" && e.textContent!.trim());
          return !named;
        })
        .map((e) => e.outerHTML),
    );
    expect(unlabelled).toEqual([]);
    await p.fill("#q", "how do I save power");
    await p.waitForSelector("#hits .hit mark");
    await p.click("#hits .hit-link >> nth=0");
    await p.waitForSelector("#related-list li");
    expect(await p.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(400);
    // the note opens below the hits here, and is brought into view
    expect(
      await p.$eval("#note-panel", (e) => {
        const r = e.getBoundingClientRect();
        return r.top < window.innerHeight && r.bottom > 0;
      }),
    ).toBe(true);
    await p.screenshot({ path: path.join(SHOTS, "search-400px.png"), fullPage: false });
    await p.close();
  });

  it("shows clear states: no results, an empty index, and a model it cannot reach", async () => {
    // every note but one is 100 days old: no electronics note changed in the past week
    await page.fill("#q", "power");
    await page.click("#tag-chips .chip >> text=#electronics");
    await page.click("#date-chips .chip >> text=Past week");
    await page.waitForFunction(() =>
      /^No results for “power”/.test(document.querySelector("#result-state")!.textContent!),
    );
    expect(await page.$$eval("#hits .hit", (els) => els.length)).toBe(0);
    await page.click("#tag-chips .chip >> text=#electronics");
    await page.click("#date-chips .chip >> text=Any time");

    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "vr-web-empty-"));
    copyVaultWithoutIndex(path.resolve("examples/vault"), path.join(tmp, "vault"));
    const closed = await new Promise<number>((r) => {
      const srv = net.createServer().listen(0, "127.0.0.1", () => {
        const port = (srv.address() as net.AddressInfo).port;
        srv.close(() => r(port));
      });
    });
    const empty = await startServe(["--vault", path.join(tmp, "vault")]);
    const noLlm = await startServe(["--vault", vault], { OLLAMA_HOST: `127.0.0.1:${closed}` });
    try {
      const p = await ctx.newPage();
      await p.goto(`${empty.origin}/`);
      await p.waitForSelector("#banner:not([hidden])");
      expect(await p.textContent("#banner")).toMatch(/^The index is empty\. Run `vault-rag index`/);
      expect(await p.textContent("#status")).toBe("No index yet.");
      await p.goto(`${noLlm.origin}/`);
      await p.waitForSelector("#tag-chips .chip");
      await p.click("#tab-ask");
      await p.fill("#question", "why did the motors cut out");
      await p.click("#ask-button");
      await p.waitForSelector("#banner:not([hidden])");
      expect(await p.textContent("#banner")).toMatch(
        /^The language model cannot be reached, so Ask cannot answer; search and related notes still work\. vault-rag: Ollama is not reachable/,
      );
      expect(await p.$$eval("#sources li", (els) => els.length)).toBeGreaterThan(0);
      await p.close();
    } finally {
      await empty.stop();
      await noLlm.stop();
    }
  });

  it("under --watch, shows what the index took in since the page loaded: the results and the counts", async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "vr-web-watch-"));
    const watched = path.join(tmp, "vault");
    copyVaultWithoutIndex(path.resolve("examples/vault"), watched);
    const served = await startServe(["--vault", watched, "--watch"]);
    try {
      const p = await ctx.newPage();
      // no note has the tag yet: once the first build is done, no results (and the hint)
      await p.goto(`${served.origin}/?q=okapi+telemetry&tag=wildlife`);
      await p.waitForFunction(
        () => /^No results for “okapi telemetry”/.test(document.getElementById("result-state")!.textContent!),
        undefined,
        { timeout: 120_000 },
      );
      const before = await p.textContent("#status");
      fs.writeFileSync(
        path.join(watched, "Okapi.md"),
        "---\ntags: [wildlife]\n---\n# Okapi\n\nOkapi telemetry collars report every hour.\n",
      );
      // taken in by watch, then seen by the page without a reload
      await p.waitForFunction(
        () => document.querySelector("#hits .hit .meta code")?.textContent?.startsWith("Okapi.md:"),
        undefined,
        { timeout: 30_000 },
      );
      expect(await p.textContent("#status")).not.toBe(before);
      await p.close();
    } finally {
      await served.stop();
    }
  });
});
