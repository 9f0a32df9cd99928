// Lint rules checked in CI (`npm run lint`): ESLint's and typescript-eslint's recommended sets,
// with the few exceptions this codebase needs, each explained.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "examples/**", "coverage/**", "**/*.d.ts"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: "readonly", console: "readonly", Buffer: "readonly" } },
    rules: {
      // Unused names are errors, except those marked unused on purpose with a leading underscore.
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" },
      ],
    },
  },
  {
    // The layers: an interface (CLI, HTTP, MCP) reads its input, calls the core (src/core,
    // src/library.ts) and renders the result; it never reaches into the pipeline's rooms.
    files: ["src/cli/**", "src/serve/**", "src/mcp/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^(\\.\\./)+(store|search|indexing|answer|embed|rerank|chunk)/",
              message: "an interface calls the core (src/core, src/library.ts), never an inner layer",
            },
          ],
        },
      ],
    },
  },
  {
    // The pipeline's rooms depend on the rooms before them, never on the core or an interface.
    files: [
      "src/vault/**",
      "src/chunk/**",
      "src/embed/**",
      "src/rerank/**",
      "src/store/**",
      "src/search/**",
      "src/indexing/**",
      "src/answer/**",
    ],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^(\\.\\./)+(core|render|cli|serve|mcp|requests)/|^(\\.\\./)+library\\.js$",
              message: "an inner layer never imports the core, the words of the interfaces, or an interface",
            },
          ],
        },
      ],
    },
  },
  {
    // The rerank room scores a question beside passages: it reads no note and no index, so it
    // imports nothing of the rooms that do (and, as every inner room, nothing outer).
    files: ["src/rerank/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^(\\.\\./)+(core|render|cli|serve|mcp|requests)/|^(\\.\\./)+library\\.js$",
              message: "an inner layer never imports the core, the words of the interfaces, or an interface",
            },
            {
              regex: "^(\\.\\./)+(vault|chunk|store|search|indexing|answer)/",
              message: "a reranker knows nothing of notes or the index: search calls it, not the other way",
            },
          ],
        },
      ],
    },
  },
  {
    // What the CLI, the store and the web app share (src/shared): no Node and nothing outside it,
    // since the web build (web/tsconfig.json) compiles it for the browser.
    files: ["src/shared/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { regex: "^node:|^[^.]", message: "src/shared runs in the browser too: no Node and no packages" },
            { regex: "^\\.\\./", message: "src/shared imports nothing outside src/shared" },
          ],
        },
      ],
    },
  },
  {
    // The developers' guide: files under 600 lines, functions under 120, every line counted
    // (blank lines and comments too).
    files: ["src/**", "web/**"],
    rules: {
      "max-lines": ["error", { max: 600, skipBlankLines: false, skipComments: false }],
      "max-lines-per-function": ["error", { max: 120, skipBlankLines: false, skipComments: false }],
    },
  },
  {
    // Tests read untyped JSON replies and match ANSI escapes, which these two rules would forbid.
    files: ["test/**"],
    rules: { "@typescript-eslint/no-explicit-any": "off", "no-control-regex": "off" },
  },
);
