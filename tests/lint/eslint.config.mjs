// ESLint for the explainer's JavaScript: the browser modules of the package (ES modules), the
// benchmark's and tests' page scripts (plain scripts run in a page) and the Node tests (tests/js,
// ES modules run by Node). ./serve.sh test runs it.
import js from "@eslint/js";
import globals from "globals";

// No function longer than a screen and a half: one that long holds more than one concept.
const MAX_LINES = { max: 100, skipBlankLines: true, skipComments: true };

export default [
  {
    // Patterns are relative to the working directory: ./serve.sh runs ESLint from the repository.
    files: ["explainer/**/*.js"],
    ...js.configs.recommended,
    languageOptions: { ecmaVersion: "latest", sourceType: "module", globals: globals.browser },
    rules: {
      ...js.configs.recommended.rules,
      "no-unused-vars": ["error", { args: "after-used", caughtErrors: "none" }],
      "prefer-const": "error",
      eqeqeq: ["error", "always"],
      "max-lines-per-function": ["error", MAX_LINES],
    },
  },
  {
    files: ["tests/**/*.js"],
    ignores: ["tests/lint/**"],
    ...js.configs.recommended,
    languageOptions: { ecmaVersion: "latest", sourceType: "script", globals: globals.browser },
    rules: {
      ...js.configs.recommended.rules,
      "no-unused-vars": ["error", { args: "after-used", caughtErrors: "none" }],
      "prefer-const": "error",
      eqeqeq: ["error", "always"],
      "max-lines-per-function": ["error", MAX_LINES],
    },
  },
  {
    files: ["tests/js/**/*.mjs"],
    ...js.configs.recommended,
    languageOptions: { ecmaVersion: "latest", sourceType: "module", globals: globals.node },
    rules: {
      ...js.configs.recommended.rules,
      "no-unused-vars": ["error", { args: "after-used", caughtErrors: "none" }],
      "prefer-const": "error",
      eqeqeq: ["error", "always"],
      "max-lines-per-function": ["error", MAX_LINES],
    },
  },
  {
    // The served pages' link to Python, which the class issue replaces whole ("move it, don't
    // polish it", issue 26): its one long function goes with it.
    files: ["explainer/figures/connection.js"],
    rules: { "max-lines-per-function": "off" },
  },
];
