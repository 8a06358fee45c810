/**
 * The Python client's e2e tests (kubernetes-client/python, `kubernetes/e2e_test/`), run
 * by pytest as they are. They import `kubernetes.e2e_test.base`, which an installed client
 * does not ship: a small pytest plugin, written to a temporary directory, adds the copy's
 * `kubernetes/` to the installed package's path, so the copy's tests and the installed
 * client meet without a file of theirs edited. `base.py` finds the cluster through
 * `KUBECONFIG`.
 *
 * @module
 */
import type { TestResult } from "./results.ts";

/** The plugin pytest loads with `-p`: the copy's `kubernetes/` joins the package's path. */
export const PATH_PLUGIN = "peer_suite_paths";

/** The plugin's source, for the copy whose `kubernetes/` directory is `packageDir`. */
export function pathPluginSource(packageDir: string): string {
  return [
    "# Written by the peer-suites script: lets an installed `kubernetes` package find",
    "# the e2e tests of a source copy as `kubernetes.e2e_test`.",
    "import kubernetes",
    `kubernetes.__path__.append(${JSON.stringify(packageDir)})`,
    "",
  ].join("\n");
}

/** pytest's arguments, from the copy's root (that holds `kubernetes/`), for these targets. */
export function pytestArgs(
  root: string,
  targets: readonly string[],
  extra: string[] = [],
): string[] {
  return [
    "-m",
    "pytest",
    "-p",
    PATH_PLUGIN,
    "-p",
    "no:cacheprovider",
    `--rootdir=${root}`,
    ...extra,
    ...targets,
  ];
}

/** The arguments that list the tests (`path::Class::test`), those matching `only` alone. */
export function collectArgs(root: string, only: string | undefined): string[] {
  return pytestArgs(root, [`${root}/kubernetes/e2e_test`], [
    "--collect-only",
    "-q",
    ...(only ? ["-k", only] : []),
  ]);
}

/** The arguments that run one test and report every outcome in the summary (`-rA`). */
export function runArgs(root: string, test: string): string[] {
  return pytestArgs(root, [`${root}/${test}`], ["-rA", "--tb=line"]);
}

/** The test ids of `--collect-only -q`'s output, relative to the root. */
export function parseCollected(output: string): string[] {
  return output.split("\n").map((line) => line.trim()).filter((line) =>
    /^\S+\.py::\S+$/.test(line)
  );
}

const OUTCOMES: Record<string, TestResult["outcome"]> = {
  PASSED: "pass",
  XPASS: "pass",
  FAILED: "fail",
  ERROR: "fail",
  XFAIL: "skip",
};

/**
 * The results of pytest's "short test summary info" (`-rA`): `PASSED id`, `FAILED id -
 * reason`, `ERROR id - reason`, and `SKIPPED [n] file:line: reason` (which has no id).
 */
export function parsePytestSummary(output: string): TestResult[] {
  const results: TestResult[] = [];
  const start = output.lastIndexOf("short test summary info");
  if (start < 0) return results;
  for (const line of output.slice(start).split("\n").slice(1)) {
    const skipped = /^SKIPPED \[\d+\] (\S+?): (.*)$/.exec(line);
    if (skipped) {
      results.push({ name: skipped[1], outcome: "skip", reason: skipped[2] });
      continue;
    }
    const match = /^([A-Z]+) (\S+)(?: - (.*))?$/.exec(line);
    const outcome = match && OUTCOMES[match[1]];
    if (!match || !outcome) continue;
    results.push({ name: match[2], outcome, ...(match[3] ? { reason: match[3] } : {}) });
  }
  return results;
}

/**
 * The modules that failed to import while collecting (`ERROR collecting path`), each a
 * failure named by its path, with the error pytest shows (its last `E   ` line).
 */
export function parseCollectionErrors(output: string): TestResult[] {
  const results: TestResult[] = [];
  const sections = output.split(/^_+ ERROR collecting (\S+) _+$/m);
  for (let i = 1; i + 1 < sections.length; i += 2) {
    const errors = sections[i + 1].split("\n").filter((line) => line.startsWith("E   "));
    const reason = errors.at(-1)?.slice(4).trim() ?? "the module could not be collected";
    results.push({ name: sections[i], outcome: "fail", reason });
  }
  return results;
}
