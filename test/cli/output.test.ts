import { describe, expect, it } from "vitest";
import { snippet } from "../../src/cli/output.js";
import { termPattern, queryTerms } from "../../src/cli/color.js";

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
    // a query word that only the tag's attribute held no longer starts the snippet inside the tag
    const long = `<ScrimbaLink title="Component lesson" />\n\n${"Words of the lesson. ".repeat(10)}The component binds both ways.`;
    expect(snippet(long, 80, termPattern(queryTerms("component")))).toMatch(/^….*The component binds both ways\.$/);
  });
});
