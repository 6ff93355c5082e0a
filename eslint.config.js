import js from "@eslint/js";
import tseslint from "typescript-eslint";
import nextPlugin from "@next/eslint-plugin-next";
import reactHooks from "eslint-plugin-react-hooks";

export default tseslint.config(
  { ignores: [".next/**", ".next-*/**", "bin/**", "node_modules/**", ".data/**", "server/generated/**", "test-results/**", "playwright-report/**", "dist/**", "next-env.d.ts"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    plugins: { "@next/next": nextPlugin, "react-hooks": reactHooks },
    rules: {
      ...nextPlugin.configs.recommended.rules,
      ...nextPlugin.configs["core-web-vitals"].rules,
      "react-hooks/rules-of-hooks": "error",
      "react-hooks/exhaustive-deps": "warn",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" }],
      "no-restricted-properties": ["error", { object: "process", property: "env", message: "Read configuration through server/env.ts" }],
    },
  },
  {
    files: ["**/*.cjs"],
    languageOptions: { sourceType: "commonjs", globals: { module: "writable", require: "readonly" } },
  },
  {
    files: ["**/*.mjs", "**/*.js"],
    languageOptions: { globals: { process: "readonly", console: "readonly", URL: "readonly", Buffer: "readonly", setTimeout: "readonly" } },
  },
  {
    // Start scripts, test harness and tool configs run outside the app and set up its environment;
    // the project_cli executable runs outside it too, with two variables of its own.
    files: ["server/env.ts", "server/tools/project-cli/cli.ts", "instrumentation.ts", "scripts/**", "test/**", "*.config.ts", "*.config.js", "e2e/**", "prisma.config.ts", "**/*.test.ts", "**/*.integration-test.ts", "bench/**", "examples/**", "sdk/*/examples/**"],
    rules: { "no-restricted-properties": "off" },
  },
);
