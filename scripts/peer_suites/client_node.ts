/**
 * `@kubernetes/client-node`'s integration tests (kubernetes-client/javascript,
 * `src/test/integration/`), run by Node with tsx as the repository's `integration-test`
 * script runs them. They import the library from `../../index.js` (the repository's
 * sources); here a temporary tree gives them the installed package's `dist/` in its place:
 * `src/*` are links to the package's built files, `src/test/integration/` a copy of the
 * tests (a copy, not links: Node resolves a link's imports from where it points). Each test
 * module runs in a process of its own, in the order the suite's `index.ts` imports them,
 * so that one failure does not hide the rest.
 *
 * @module
 */

/** The driver Node runs per test: import the module, await its default export. */
export const DRIVER_SOURCE = [
  "// Written by the peer-suites script: runs one integration test module's default export.",
  'import { pathToFileURL } from "node:url";',
  "const module = await import(pathToFileURL(process.argv[2]).href);",
  "try {",
  "  await module.default();",
  "  process.exit(0);",
  "} catch (error) {",
  "  console.error(error);",
  "  const text = String(error?.message ?? error).split('\\n')[0];",
  "  console.error(`PEER-TEST-FAILURE ${text}`);",
  "  process.exit(1);",
  "}",
  "",
].join("\n");

/** The marker of the driver's one-line reason on stderr. */
export const FAILURE_MARK = "PEER-TEST-FAILURE ";

/**
 * The test modules of the suite, in the order its `index.ts` imports them
 * (`import name from './module.js'`): the names of the modules, without extension.
 */
export function testModulesOf(indexSource: string): string[] {
  const modules: string[] = [];
  for (const match of indexSource.matchAll(/^import\s+\w+\s+from\s+['"]\.\/([\w.-]+)\.js['"]/gm)) {
    modules.push(match[1]);
  }
  return modules;
}

/** The driver's one-line reason in a failed test's stderr (or its last line). */
export function failureReason(stderr: string): string {
  const lines = stderr.split("\n").map((line) => line.trim()).filter((line) => line);
  const marked = lines.findLast((line) => line.startsWith(FAILURE_MARK));
  return marked ? marked.slice(FAILURE_MARK.length) : (lines.at(-1) ?? "no output");
}
