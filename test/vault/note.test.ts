import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { collectingLogger } from "../../src/log.js";
import { findInlineRefs, parseNote, readNote, readVaultFile, resolveNote, walkVault } from "../../src/vault/index.js";

describe("pasted images", () => {
  it("leave their base64 out of the note's text, on the same lines, so that it is neither searched, embedded nor shown", () => {
    const png = "iVBORw0KGgo" + "AAAA".repeat(50_000);
    const n = parseNote("k8s.md", `# K8s\n\n![](data:image/png;base64,${png})\nThe etcd store keeps state.\n`, 0);
    expect(n.body).toBe("# K8s\n\n![](data:image/png;base64,…)\nThe etcd store keeps state.\n");
    // a parameter before ;base64, a data URI in a link, and upper case are read too
    const other = parseNote(
      "x.md",
      `[file](data:application/pdf;name=a.pdf;BASE64,${png}) and <img src="data:image/jpeg;base64,${png}">`,
      0,
    );
    expect(other.body).toBe(
      '[file](data:application/pdf;name=a.pdf;BASE64,…) and <img src="data:image/jpeg;base64,…">',
    );
    // a 6 MB payload (a retina screenshot) in one pass: a pattern over it overflowed V8's stack
    const huge = parseNote("shot.md", `![](data:image/png;base64,${"QUJD".repeat(1_500_000)}==)\n`, 0);
    expect(huge.body).toBe("![](data:image/png;base64,…)\n");
    // a note of properties alone is indexed from its frontmatter: its payloads go too
    const cover = parseNote("Dune.md", `---\ntitle: Dune\ncover: data:image/png;base64,${png}\n---\n`, 0);
    expect(cover.properties).toBe("title: Dune\ncover: data:image/png;base64,…\n");
  });
});

describe("frontmatter", () => {
  it("reads tags as a list, a single string, or a comma/space separated string", () => {
    expect(parseNote("a.md", "---\ntags: [Robots, pico]\n---\nx", 0).tags).toEqual(["robots", "pico"]);
    expect(parseNote("a.md", "---\ntags: robots\n---\nx", 0).tags).toEqual(["robots"]);
    expect(parseNote("a.md", "---\ntags: robots, pico esp32\n---\nx", 0).tags).toEqual(["robots", "pico", "esp32"]);
    expect(parseNote("a.md", "---\ntags:\n  - projects/Robots\n---\nx", 0).tags).toEqual([
      "projects/robots",
      "projects",
    ]);
    expect(parseNote("a.md", "---\ntags:\n---\nx", 0).tags).toEqual([]);
  });

  it("reads a tag whole with its letters' combining marks, and stores it composed", () => {
    const n = parseNote("x.md", "# P\n\nOpen. #cafe\u0301 #हिन्दी #日本語タグ\n", 0);
    // not "cafe" and "ह", cut at the first combining mark
    expect(n.tags).toEqual(["caf\u00e9", "हिन्दी", "日本語タグ"]);
  });

  it("reads aliases as list, string or empty, and the title from frontmatter or file name", () => {
    expect(parseNote("r/SMARS.md", "---\naliases: [SMARS, Small robot]\ntitle: SMARS Robot\n---\n", 0)).toMatchObject({
      aliases: ["SMARS", "Small robot"],
      title: "SMARS Robot",
    });
    expect(parseNote("r/SMARS.md", "---\naliases: Rover\n---\n", 0)).toMatchObject({
      aliases: ["Rover"],
      title: "SMARS",
    });
    expect(parseNote("r/SMARS.md", "---\naliases:\n---\n", 0).aliases).toEqual([]);
  });

  it("titles a folder's page (index.md, README.md) by its first # heading, else by its folder", () => {
    expect(parseNote("guide/index.md", "Intro\n\n# Getting Started {#start}\n\n## More\n", 0).title).toBe(
      "Getting Started",
    );
    expect(parseNote("style-guide/README.md", "## Rules\n\ntext\n", 0).title).toBe("style-guide");
    expect(parseNote("index.md", "no heading\n", 0).title).toBe("index");
    expect(parseNote("guide/index.md", "---\ntitle: Guide\n---\n# Other\n", 0).title).toBe("Guide");
    expect(parseNote("guide/indexes.md", "# Indexes in Postgres\n", 0).title).toBe("indexes");
  });

  it("reads an Excalidraw drawing by its text elements, without the plugin's banner, block ids and drawing JSON", () => {
    const drawing = [
      "---",
      "excalidraw-plugin: parsed",
      "tags: [excalidraw]",
      "---",
      "==⚠  Switch to EXCALIDRAW VIEW in the MORE OPTIONS menu of this document. ⚠==",
      "",
      "# Text Elements",
      "Hypervisor ^OauK8fFC",
      "",
      "Container runtime ^Gu0qENxn",
      "",
      "%%",
      "# Drawing",
      "```json",
      '{ "type": "excalidraw", "elements": [{ "strokeColor": "#1e1e1e", "x": -536.17 }] }',
      "```",
      "%%",
    ].join("\n");
    const note = parseNote("Drawings/Virtualization.excalidraw.md", drawing, 0);
    expect(note.title).toBe("Virtualization");
    expect(note.tags).toEqual(["excalidraw"]);
    expect(note.body).toBe("\n\n# Text Elements\nHypervisor\n\nContainer runtime\n\n");
    // the body keeps its lines: a text element's line number (1-based) is its line in the file
    expect(note.body.split("\n")[3]).toBe("Hypervisor");
    expect(drawing.split("\n")[note.bodyStartLine - 1 + 3]).toBe("Hypervisor ^OauK8fFC");
    // the frontmatter key alone marks a drawing; an ordinary note's %% comment and ^ids are its own
    expect(parseNote("a.md", "---\nexcalidraw-plugin: raw\n---\nWords\n%%\n## Drawing\n{}\n%%\n", 0).body).toBe(
      "Words\n",
    );
    // the 2.x plugin's banner goes on after its marks; a line of spaces before a block id is read in one pass
    const v2 = parseNote(
      "d.excalidraw.md",
      `==⚠  Switch to EXCALIDRAW VIEW in the MORE OPTIONS menu of this document. ⚠== You can decompress Drawing data with the command palette: 'Decompress current Excalidraw file'. For more info check in plugin settings under 'Saving'\n\n# Text Elements\nLabel${" ".repeat(100_000)}^abc123\n`,
      0,
    );
    expect(v2.body).toBe("\n\n# Text Elements\nLabel\n");
    // (its ^ids stay; its %% comment is hidden as in any note, its lines kept)
    const plain = "A thought ^id1\n%%\n# Drawing\nstill mine\n%%\n";
    expect(parseNote("notes/plain.md", plain, 0).body).toBe("A thought ^id1\n\n\n\n\n");
  });

  it("gives a drawing with no text elements no text at all, not its heading or the plugin's properties", async () => {
    const { chunkNote } = await import("../../src/chunk/index.js");
    const data = "%%\n# Drawing\n```json\n{}\n```\n%%\n";
    const banner = "==⚠  Switch to EXCALIDRAW VIEW in the MORE OPTIONS menu of this document. ⚠==\n\n";
    for (const body of [`${banner}# Text Elements\n${data}`, `${banner}\n${data}`]) {
      const note = parseNote(
        "Drawing 2022-06-07.excalidraw.md",
        `---\nexcalidraw-plugin: parsed\ntags: [excalidraw]\n---\n${body}`,
        0,
      );
      expect([note.body, note.properties, note.tags]).toEqual(["", "", ["excalidraw"]]);
      expect(chunkNote(note)).toEqual([]);
    }
    // one word is a drawing's text
    expect(parseNote("d.excalidraw.md", `${banner}# Text Elements\nTCP ^a1\n${data}`, 0).body).toBe(
      "\n\n# Text Elements\nTCP\n",
    );
  });
  it("indexes a note with invalid YAML by its body and warns with file and line", () => {
    const log = collectingLogger();
    const note = parseNote("work/Broken.md", "---\ntitle: ok\ntags: [work\n---\n# Body #inline\n", 0, log);
    expect(note.body).toBe("# Body #inline\n");
    expect(note.tags).toEqual(["inline"]);
    expect(note.bodyStartLine).toBe(5);
    expect(log.warnings).toHaveLength(1);
    expect(log.warnings[0].code).toBe("frontmatter_invalid");
    expect(log.warnings[0].message).toMatch(
      /^vault-rag: invalid frontmatter in "work\/Broken\.md" at line \d+: .* — the note is indexed without it$/,
    );
    // the YAML library's own "at line L, column C:" (before a code frame it leaves out) is not repeated
    expect(log.warnings[0].message).not.toMatch(/column|: —/);
  });

  it("handles a note that is only frontmatter, an empty note, CRLF and a BOM", () => {
    expect(parseNote("a.md", "---\ntags: [x]\n---\n", 0)).toMatchObject({ body: "", tags: ["x"] });
    expect(parseNote("a.md", "", 0)).toMatchObject({ body: "", tags: [], title: "a" });
    const crlf = parseNote("a.md", "\uFEFF---\r\ntags: [x]\r\n---\r\n# H\r\ntext #t\r\n", 0);
    expect(crlf.tags).toEqual(["x", "t"]);
    expect(crlf.bodyStartLine).toBe(4);
  });

  it("reads a template's placeholder frontmatter (created: {{date}}) without a warning from the YAML parser on stderr", () => {
    const warn = vi.spyOn(process, "emitWarning");
    try {
      const note = parseNote("Templates/Journal.md", "---\ncreated: {{date}}\ntags: [journal]\n---\n# {{title}}\n", 0);
      expect(note.tags).toEqual(["journal"]);
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });
});

describe("inline tags and links", () => {
  it("finds nested tags and wikilinks, skipping code, links, URLs, headings and colours", () => {
    const body = [
      "# Heading is not a tag",
      "Uses #Pico/W and #robots, see [[Battery#Current|power]] and ![[diagram.png]].",
      "Colour #ff0000 and `#notatag` and [#linktext](https://x.org/#anchor) https://e.com/#frag",
      "```",
      "#include <stdio.h>",
      "```",
      "Issue #123 is a number, #2026-plan is a tag.",
    ].join("\n");
    const refs = findInlineRefs(body);
    expect(refs.tags).toEqual(["Pico/W", "robots", "2026-plan"]);
    expect(refs.links).toEqual(["Battery", "diagram.png"]);
  });

  it("reads a wikilink whose display text holds code or emphasis as one link, and takes no tag from it or from an escaped #", () => {
    const refs = findInlineRefs(
      [
        "Use the [[#Conditional visibility|`visible` predicate]] instead.",
        "See [[Motors|the **N20** motors]] and [[Battery|`3.7 V` cell]].",
        "Example: \\#ffffff, and \\[\\[Not a link]], but #real is a tag.",
      ].join("\n\n"),
    );
    expect(refs.tags).toEqual(["real"]);
    expect(refs.links).toEqual(["Motors", "Battery"]);
    // inline HTML, emphasis and code end a tag as the rendered note does, and start one after them
    expect(
      findInlineRefs(
        [
          "| Water | #garden<br>#weekly |",
          "Also #idea<br>see below, #tag**bold**, x<span>#t</span>, `x`#after and &nbsp;#nb.",
        ].join("\n\n"),
      ).tags,
    ).toEqual(["garden", "weekly", "idea", "tag", "t", "after", "nb"]);
    expect(refs.linkTexts).toEqual([
      { target: "Motors", text: "See the N20 motors and 3.7 V cell.", display: "the N20 motors" },
      { target: "Battery", text: "See the N20 motors and 3.7 V cell.", display: "3.7 V cell" },
    ]);
  });

  it("counts the frontmatter's wikilinks as links, as Obsidian's properties do, each once", () => {
    const text = [
      "---",
      'author: "[[Kevin Kelly]]"',
      "categories:",
      '  - "[[People|people]]"',
      '  - "[[Books#Read]]"',
      "year: 2016",
      "nested: { by: ['[[Wired]]'] }",
      "url: https://example.org/[[not]]x", // a wikilink inside text is still one
      "---",
      "Read with [[Kevin Kelly]] and [[Cover.png]].",
    ].join("\n");
    expect(parseNote("References/Out of Control.md", text, 0).links).toEqual([
      "Kevin Kelly",
      "People",
      "Books",
      "Wired",
      "not",
      "Cover.png",
    ]);
  });

  it("reads a wikilink's name without brackets in it, so a line of [[ without ]] holds no link", () => {
    expect(findInlineRefs("see [[[Note]]] and [[x [y]] and [[Last|the end]]").links).toEqual(["Note", "Last"]);
    // 100,000 "[[" (read from each one to the line's end, this takes seconds; the next "[" stops it)
    expect(findInlineRefs("[[".repeat(100_000) + "Tail]]").links).toEqual(["Tail"]);
  });

  it("counts Markdown links to notes as links, resolved against the note's folder to vault-relative paths", () => {
    const body = [
      "See [the fallback](../unix/fallback%20value.md#top), [a sibling](sibling.md) and [root](/git/undo.md).",
      "Not notes: [site](https://x.org/a.md), [a picture](pic.png), [an anchor](#top), [out](../../away.md), `[code](code.md)`.",
      "- [in a list](list.md)",
      "```",
      "[fenced](fenced.md)",
      "```",
    ].join("\n");
    expect(findInlineRefs(body, "neovim").links).toEqual([
      "unix/fallback value.md",
      "neovim/sibling.md",
      "git/undo.md",
      "neovim/list.md",
    ]);
    // parseNote gives the folder: a note at the top resolves to the top
    expect(parseNote("top.md", "[a](b.md) and [[Wiki]]", 0).links).toEqual(["b.md", "Wiki"]);
    expect(parseNote("a/b/n.md", "[up](../c.md)", 0).links).toEqual(["a/c.md"]);
  });

  it("reads a Markdown link without an extension, to a built .html page or to a folder's index as a link to that note", () => {
    const body =
      "See [setup](../guide/setup), [a page](Some%20page#part), [a key](:key), [a tarball](dist/app.tar), [up](../), [top](/).";
    expect(findInlineRefs(body, "notes").links).toEqual(["guide/setup.md", "notes/Some page.md"]);
    // the pages a documentation site builds: `x.html` from `x.md`, a folder's from its `index.md`
    const site =
      "Read [composables](/guide/reusability/composables.html#x), [generics](../api/sfc.htm) and [the examples](/examples/).";
    expect(findInlineRefs(site, "guide").links).toEqual([
      "guide/reusability/composables.md",
      "api/sfc.md",
      "examples/index.md",
    ]);
    expect(findInlineRefs("[how](setup).", "notes").linkTexts).toEqual([
      { target: "notes/setup.md", text: "how.", display: "how", markdown: true },
    ]);
  });

  it("reads reference-style links to notes, defined anywhere in the note, with their sentence", () => {
    const body = [
      "Bake it as [the loaf][bread] says, then [Salt] it. A [missing][nowhere] label is text.",
      "",
      "[bread]: ../kitchen/Sourdough.md",
      "[salt]: <../pantry/Salt.md> 'the salt note'",
      "[bread]: ignored.md",
      "[site]: https://x.org/a.md",
    ].join("\n");
    const refs = findInlineRefs(body, "notes");
    expect(refs.links).toEqual(["kitchen/Sourdough.md", "pantry/Salt.md"]);
    expect(refs.linkTexts).toEqual([
      {
        target: "kitchen/Sourdough.md",
        text: "Bake it as the loaf says, then Salt it.",
        display: "the loaf",
        markdown: true,
      },
      { target: "pantry/Salt.md", text: "Bake it as the loaf says, then Salt it.", display: "Salt", markdown: true },
    ]);
    // a note longer than one parse slice still finds a definition that sits in a later slice
    const long = `Read [it][far].\n\n${"filler words here.\n\n".repeat(3000)}[far]: far.md\n`;
    expect(findInlineRefs(long, "").links).toEqual(["far.md"]);
  });

  it("keeps the sentence around each link, links shown as their display text, for the linked note's backlink text", () => {
    const body = [
      "# Bread",
      "Mix well. Bake it as [[kitchen/Sourdough#Method|the levain loaf]] says, with [salt](../pantry/Salt.md)! Rest it.",
      "",
      "- Also see [[Starter]] and `code`, ![[photo.png]] not a word.",
      "```",
      "[[Fenced]] is code",
      "```",
      `${"word ".repeat(300)}[[Far]] ${"more ".repeat(300)}`,
    ].join("\n");
    const texts = findInlineRefs(body, "notes").linkTexts;
    expect(texts.slice(0, 3)).toEqual([
      { target: "kitchen/Sourdough", text: "Bake it as the levain loaf says, with salt!", display: "the levain loaf" },
      {
        target: "pantry/Salt.md",
        text: "Bake it as the levain loaf says, with salt!",
        display: "salt",
        markdown: true,
      },
      { target: "Starter", text: "Also see Starter and code, not a word.", display: "Starter" },
    ]);
    // a sentence that never ends is cut 200 characters either side of the link
    expect(texts[3].target).toBe("Far");
    expect(texts[3].text).toBe(`${"word ".repeat(40).trim()} Far ${"more ".repeat(40).trim()}`);
    expect(texts).toHaveLength(4);
    expect(parseNote("a.md", "No links here.", 0).linkTexts).toEqual([]);
    expect(parseNote("a/b.md", "See [c](c.md).", 0).linkTexts).toEqual([
      { target: "a/c.md", text: "See c.", display: "c", markdown: true },
    ]);
    // the same target in the same words counts once, however often it is written
    expect(findInlineRefs("[[x]] [[x]] [[x]], and [[y]].").linkTexts).toEqual([
      { target: "x", text: "x x x, and y.", display: "x" },
      { target: "y", text: "x x x, and y.", display: "y" },
    ]);
  });

  it("keeps the first thousand links of a note, and says so with links_truncated", () => {
    const log = collectingLogger();
    const body = Array.from({ length: 1500 }, (_, i) => `[[n${i}]]`).join(" ");
    const note = parseNote("hub.md", body, 0, log);
    expect(note.links).toHaveLength(1000);
    expect(note.links.slice(0, 2)).toEqual(["n0", "n1"]);
    expect(log.warnings.map((w) => [w.code, w.message])).toEqual([
      ["links_truncated", 'vault-rag: "hub.md" links to 1500 notes; the first 1000 are kept as its links'],
    ]);
    expect(parseNote("few.md", "[[a]] [[b]]", 0, log).links).toEqual(["a", "b"]);
    expect(log.warnings).toHaveLength(1);
  });

  it("keeps the first 200 tags and aliases of a note, and says so with tags_truncated and aliases_truncated", () => {
    const log = collectingLogger();
    const aliases = Array.from({ length: 250 }, (_, i) => `  - name ${i}`).join("\n");
    const tags = Array.from({ length: 300 }, (_, i) => `#t${i}`).join(" ");
    const note = parseNote("flood.md", `---\naliases:\n${aliases}\n---\n# Flood\n\n${tags}\n`, 0, log);
    expect(note.tags).toHaveLength(200);
    expect(note.tags.slice(0, 2)).toEqual(["t0", "t1"]);
    expect(note.aliases).toHaveLength(200);
    expect(note.aliases.at(-1)).toBe("name 199");
    expect(log.warnings.map((w) => [w.code, w.message])).toEqual([
      ["aliases_truncated", 'vault-rag: "flood.md" has 250 aliases; the first 200 are kept as its aliases'],
      ["tags_truncated", 'vault-rag: "flood.md" has 300 tags; the first 200 are kept as its tags'],
    ]);
    expect(parseNote("few.md", "#a #b", 0, log).tags).toEqual(["a", "b"]);
    expect(log.warnings).toHaveLength(2);
  });

  it("takes no tag from a heading's {#id}", () => {
    expect(findInlineRefs("## Basic Usage {#basic-usage}\n\nSee #real and {#inline}.\n").tags).toEqual([
      "real",
      "inline",
    ]);
  });

  it("lowercases, dedupes and adds parents of nested tags", () => {
    expect(parseNote("a.md", "---\ntags: [A/B]\n---\n#a/b #A #c/d/e", 0).tags).toEqual([
      "a/b",
      "a",
      "c/d/e",
      "c/d",
      "c",
    ]);
  });
});

describe("walker", () => {
  it("skips dot-folders and ignored paths, survives symlink loops, refuses symlinks out of the vault, into what it leaves out or to a note it indexes", () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "vr-walk-"));
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), "vr-out-"));
    fs.mkdirSync(path.join(root, "a/b"), { recursive: true });
    fs.mkdirSync(path.join(root, ".obsidian"));
    fs.mkdirSync(path.join(root, "drafts"));
    fs.writeFileSync(path.join(root, "a/b/deep note.md"), "x");
    fs.writeFileSync(path.join(root, "top.md"), "x");
    fs.writeFileSync(path.join(root, ".obsidian/x.md"), "x");
    fs.writeFileSync(path.join(root, "drafts/d.md"), "x");
    fs.writeFileSync(path.join(root, "notes.txt"), "x");
    fs.writeFileSync(path.join(root, ".vault-ragignore"), "drafts/\n");
    fs.writeFileSync(path.join(outside, "secret.md"), "x");
    fs.symlinkSync(root, path.join(root, "a/loop"));
    fs.symlinkSync(outside, path.join(root, "escape"));
    // links to what the vault leaves out do not bring it back in; a link to a note it keeps would
    // index that note twice (every hit twice), so it is skipped too
    fs.symlinkSync(path.join(root, "drafts/d.md"), path.join(root, "leak.md"));
    fs.symlinkSync(path.join(root, ".obsidian/x.md"), path.join(root, "a/settings.md"));
    fs.symlinkSync(path.join(root, "drafts"), path.join(root, "a/drafts-too"));
    fs.symlinkSync(path.join(root, "top.md"), path.join(root, "a/top-again.md"));
    const log = collectingLogger();
    const files = walkVault(root, log).map((f) => f.path);
    expect(files).toEqual(["a/b/deep note.md", "top.md"]);
    expect(log.warnings.map((w) => w.code).sort()).toEqual([
      "symlink_duplicate",
      "symlink_hidden",
      "symlink_hidden",
      "symlink_hidden",
      "symlink_loop",
      "symlink_outside",
    ]);
    expect(log.warnings.map((w) => w.message)).toContain(
      'vault-rag: skipped symlink "leak.md" — it points to "drafts/d.md", which the vault leaves out',
    );
    expect(log.warnings.map((w) => w.message)).toContain(
      'vault-rag: skipped symlink "a/top-again.md" — it points to "top.md", which is indexed itself',
    );
    // refused as a note that is not there: a reader is not told that a file is behind it
    expect(() => resolveNote(root, "leak")).toThrow(/^vault-rag: no note "leak" in the vault — /);
    // a link to a folder the vault keeps does not bring back a note in it that the ignore file names
    const lib = fs.mkdtempSync(path.join(os.tmpdir(), "vr-walk-"));
    fs.mkdirSync(path.join(lib, "notes"));
    fs.writeFileSync(path.join(lib, "notes/Ok.md"), "x");
    fs.writeFileSync(path.join(lib, "notes/Secret.md"), "x");
    fs.writeFileSync(path.join(lib, ".vault-ragignore"), "notes/Secret.md\n");
    fs.symlinkSync(path.join(lib, "notes"), path.join(lib, "alias"));
    const seen = walkVault(lib).map((f) => f.path);
    expect(seen.some((p) => p.endsWith("/Ok.md"))).toBe(true);
    expect(seen.filter((p) => p.endsWith("/Secret.md"))).toEqual([]);
  });

  it("says what to do when the vault does not exist", () => {
    expect(() => walkVault("/nonexistent/vault")).toThrow(
      'vault-rag: vault folder "/nonexistent/vault" does not exist — pass the folder that holds your notes',
    );
  });

  it("skips binary and invalid UTF-8 files with a warning naming them", () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "vr-bin-"));
    fs.writeFileSync(path.join(root, "bin.md"), Buffer.from([1, 2, 0, 3]));
    fs.writeFileSync(path.join(root, "latin1.md"), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    const log = collectingLogger();
    const notes = walkVault(root, log).map((f) => readNote(f, log));
    expect(notes).toEqual([undefined, undefined]);
    expect(log.warnings.map((w) => w.message)).toEqual([
      'vault-rag: skipped "bin.md": it is a binary file, not Markdown text',
      'vault-rag: skipped "latin1.md": it is not valid UTF-8 — save it as UTF-8',
    ]);
  });
});

describe("a note edited after the walk listed it", () => {
  it("is read with the time and size of the text read, not of the listing", () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "vr-edited-"));
    fs.writeFileSync(path.join(root, "a.md"), "# A\n\nFirst words.\n");
    fs.utimesSync(path.join(root, "a.md"), 1_700_000_000, 1_700_000_000);
    const [listed] = walkVault(root);
    expect(listed.mtime).toBe(1_700_000_000);
    // edited between the listing and the read, as by an editor while an index runs
    fs.writeFileSync(path.join(root, "a.md"), "# A\n\nFirst words, and a line more.\n");
    fs.utimesSync(path.join(root, "a.md"), 1_700_000_100, 1_700_000_100);
    const r = readVaultFile(listed);
    expect(r.note!.body).toContain("a line more");
    expect(r.stat).toEqual({ mtime: 1_700_000_100, size: fs.statSync(path.join(root, "a.md")).size });
    expect(r.note!.mtime).toBe(1_700_000_100);
    expect(r.stat!.size).not.toBe(listed.size);
  });
});
