import { describe, expect, it } from "vitest";
import { formatHits } from "../../src/cli/output.js";
import { highlightTerms as queryTerms, printable, snippet, termPattern } from "../../src/shared/snippet-text.js";

describe("snippets", () => {
  it("leave out HTML a reader does not see, and keep tags written as words", () => {
    const text = [
      "## v-model",
      "",
      '<ScrimbaLink href="https://scrimba.com/x" title="Free Vue.js Component v-model Lesson" />',
      "",
      '<div class="options-api">',
      "",
      "`v-model` can be used on a component to implement a two-way binding, as <Teleport> and `<script setup>` allow.",
      "",
      "</div>",
    ].join("\n");
    expect(snippet(text, 200)).toBe(
      "`v-model` can be used on a component to implement a two-way binding, as <Teleport> and `<script setup>` allow.",
    );
    // a query word that only the tag's attribute held does not start the snippet inside the tag
    const long = `<ScrimbaLink title="Component lesson" />\n\n${"Words of the lesson. ".repeat(10)}The component binds both ways.`;
    expect(snippet(long, 80, termPattern(queryTerms("component")))).toMatch(/^….*The component binds both ways\.$/);
    // a tag that never closes is text (read in one pass, however long)
    expect(snippet(`<a ${"=".repeat(40_000)}`, 20)).toBe(`<a ${"=".repeat(16)}…`);
  });

  it("leaves HTML comments out of a snippet, as the rendered note does", () => {
    expect(
      snippet(
        '<!-- Old headings. Do not remove or links may break. -->\n<a id="the-match"></a>\n\nThe match construct compares.',
      ),
    ).toBe("The match construct compares.");
    expect(snippet("Before. <!--\nan author's\nnote\n--> After.")).toBe("Before. After.");
    // a comment that never closes is text
    expect(snippet("a <!-- b")).toBe("a <!-- b");
  });

  it("shows a comment's words when the query matched only there, so a hit shows why it was found", () => {
    const text = "# Pantry\n\nRice and oats in the top drawer.\n\n<!-- reorder the capybara tins -->\n";
    expect(snippet(text, 100, termPattern(queryTerms("capybara")))).toBe(
      "Rice and oats in the top drawer. reorder the capybara tins",
    );
    // a word the visible text holds leaves the comment out
    expect(snippet(text, 100, termPattern(queryTerms("oats capybara")))).toBe("Rice and oats in the top drawer.");
  });

  it("reads a backslash escape as the mark it escapes, as the rendered note does", () => {
    expect(snippet("The consumer\\_offsets topic and \\[특집\\] and C:\\Users stay readable.")).toBe(
      "The consumer_offsets topic and [특집] and C:\\Users stay readable.",
    );
  });

  it("shows a passage of embeds alone as the names it embeds, not as a blank line", () => {
    expect(snippet("# Albums\n\n![[Albums.base]]\n")).toBe("Albums.base");
    expect(snippet("![[Cover.png|200]] ![[Tracks#Side A]]")).toBe("Cover.png Tracks#Side A");
    // beside other text an embed is still left out
    expect(snippet("See the list below. ![[Albums.base]]")).toBe("See the list below.");
  });

  it("read as the rendered note does: links as their text, embeds and marks left out, table cells apart", () => {
    const text = [
      "## Billing",
      "",
      "> [!warning] Careful",
      '> Log into [your account](https://obsidian.md/account/billing "Account"). Under **Billing → Plans**, pick one.',
      "",
      "![[icon.svg#icon]] See [[Plans|the plans]] and [[Refund policy]]; ![a chart](chart.png) shows __why__.",
      "",
      "| Operator | Meaning |",
      "| --- | :---: |",
      "| `\\|\\|` | or |",
      "",
      "Run `ls | grep x` on snake__case__names.",
      "",
      "::: tip Reactivity",
      "Refs are unwrapped in templates.",
      ":::",
    ].join("\n");
    expect(snippet(text, 400)).toBe(
      "warning: Careful Log into your account. Under Billing → Plans, pick one. See the plans and Refund policy; a chart shows why. Operator · Meaning `||` · or Run `ls | grep x` on snake__case__names. tip: Reactivity Refs are unwrapped in templates.",
    );
  });

  it("read an API page as rendered: a link whose URL holds parentheses, inline HTML tags, a heading within the passage", () => {
    const text = [
      "## Vault.on() method",
      "",
      "[`(constructor)`](View/(constructor).md) and ![the icon](img/icon(1).png) of the view.",
      "",
      "| Name | Type |",
      "| --- | --- |",
      "| <code>name</code> | <code>'create'</code> |",
      "",
      "## Command.hotkeys property",
      "",
      "Press <kbd>Ctrl</kbd>+<kbd>P</kbd>; #tag and `#include` stay.",
    ].join("\n");
    expect(snippet(text, 400)).toBe(
      "`(constructor)` and the icon of the view. Name · Type name · 'create' Command.hotkeys property Press Ctrl+P; #tag and `#include` stay.",
    );
  });
  it("start where most of the query's words meet, not at the first of them", () => {
    const page = [
      "# git stash",
      "",
      "> Stash local Git changes in a temporary area. More information: <https://git-scm.com/docs/git-stash>.",
      "",
      ...Array.from({ length: 6 }, (_, i) => `- Do thing ${i} with the working tree:\n\n\`git stash thing-${i}\``),
      "- Apply a stash (default is the latest) and delete it from the list, unless it conflicts:",
      "",
      "`git stash pop`",
    ].join("\n");
    const shown = snippet(page, 100, termPattern(queryTerms("stash pop")));
    expect(shown).toMatch(/^….*`git stash pop`$/);
    // one word: its first place
    expect(snippet(page, 100, termPattern(queryTerms("stash")))).toMatch(/^Stash local Git changes/);
  });

  it("shows a fenced code block as written: an embed, a link or a tag in it is its text, not a mark", () => {
    const page = "# PDF\n\nTo embed a PDF:\n\n```md\n![[Document.pdf]]\n```\n\nOr [[Other|another]] **note**.";
    expect(snippet(page, 200)).toBe("To embed a PDF: ```md ![[Document.pdf]] ``` Or another note.");
    expect(snippet('~~~html\n<div class="x">[[a|b]]</div>\n~~~\nthen ![[img.png]] **b**', 200)).toBe(
      '~~~html <div class="x">[[a|b]]</div> ~~~ then b',
    );
    // a block never closed runs to the end; a fence of backticks with a backtick after it is inline code
    expect(snippet("x\n```\n[[y|z]]", 200)).toBe("x ``` [[y|z]]");
    expect(snippet("```a` and [[y|z]]", 200)).toBe("```a` and z");
  });

  it("write control characters as escapes: a file name with a line break stays one line, a note cannot drive the terminal", () => {
    expect(printable("weird\nname.md")).toBe("weird\\nname.md");
    expect(printable("a\u001b[31mred\u0007")).toBe("a\\x1b[31mred\\x07");
    // a bidi override would show the rest of the line backwards ("\u202eRTL.md" reads "dm.LTR")
    expect(printable("notes/\u202eRTL.md:1 \u2066x\u2069")).toBe("notes/\\u202eRTL.md:1 \\u2066x\\u2069");
    const hit = {
      id: "x",
      path: "odd\nname.md",
      title: "t",
      section: "t",
      label: "t",
      text: "Before \u001b]0;pwned\u0007 after.",
      score: 1,
      distance: 0,
      meta: { start_line: 1 },
    } as unknown as Parameters<typeof formatHits>[0][number];
    const out = formatHits([hit]);
    expect(out.split("\n")).toEqual(["odd\\nname.md:1  t", "    Before \\x1b]0;pwned\\x07 after."]);
  });

  it("shows a hybrid hit's place in each list with --verbose, a dash for a list that did not bring it", () => {
    const hit = (ranks?: { dense?: number; keyword?: number }) =>
      ({
        id: "x",
        path: "a.md",
        title: "A",
        section: "A",
        label: "A",
        text: "Body.",
        score: 0.5,
        distance: 0.5,
        meta: { start_line: 3 },
        ...(ranks ? { ranks } : {}),
      }) as unknown as Parameters<typeof formatHits>[0][number];
    const first = (h: ReturnType<typeof hit>) => formatHits([h], { verbose: true }).split("\n")[0];
    expect(first(hit({ dense: 3, keyword: 1 }))).toBe("a.md:3  A  score 0.500, distance 0.500; dense #3, keyword #1");
    expect(first(hit({ dense: 12 }))).toBe("a.md:3  A  score 0.500, distance 0.500; dense #12, keyword –");
    // a single mode's hit has no ranks: its score is its place
    expect(first(hit())).toBe("a.md:3  A  score 0.500, distance 0.500");
    expect(formatHits([hit({ dense: 3, keyword: 1 })]).split("\n")[0]).toBe("a.md:3  A");
    // a hit moved up because the query is its note's name says so, or its places would contradict its score
    expect(first({ ...hit({ keyword: 38 }), named: true })).toBe(
      "a.md:3  A  score 0.500, distance 0.500; dense –, keyword #38; moved up: the query is this note's name",
    );
  });
});
