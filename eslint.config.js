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
    // Tests read untyped JSON replies and match ANSI escapes, which these two rules would forbid.
    files: ["test/**"],
    rules: { "@typescript-eslint/no-explicit-any": "off", "no-control-regex": "off" },
  },
);
