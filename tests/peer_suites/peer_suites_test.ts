/**
 * scripts/peer_suites.ts: its command line, how it reads what pytest and the client-node
 * driver print, and a run of a tiny suite laid out as the Python client's e2e tests are
 * (when a python3 with the kubernetes client and pytest is on PATH).
 */
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { ROOT, run, runDeno } from "../platform/commands.ts";
import { parsePeerOptions } from "../../scripts/peer_suites/options.ts";
import {
  parseCollected,
  parseCollectionErrors,
  parsePytestSummary,
} from "../../scripts/peer_suites/python.ts";
import { failureReason, testModulesOf } from "../../scripts/peer_suites/client_node.ts";
import { summaryLine } from "../../scripts/peer_suites/results.ts";

Deno.test("peer suites: the command line takes suites, refuses half a client-node pair and unknown flags", () => {
  const options = parsePeerOptions(["--python", "a", "--python", "b", "--only", "watch"]);
  assert(typeof options !== "string");
  assertEquals([options.python, options.only, options.timeout], [["a", "b"], "watch", 90]);
  assertStringIncludes(
    parsePeerOptions(["--client-node", "x"]) as string,
    "--client-node-tests and --client-node go together",
  );
  assertStringIncludes(parsePeerOptions([]) as string, "Nothing to run");
  assertStringIncludes(parsePeerOptions(["--python"]) as string, "--python needs a value");
  assertStringIncludes(parsePeerOptions(["--pyton", "a"]) as string, "Unknown option --pyton");
  assertStringIncludes(
    parsePeerOptions(["--python", "a", "--timeout", "0"]) as string,
    "--timeout",
  );
  assert((parsePeerOptions(["--help"]) as { help: boolean }).help);
});

Deno.test("peer suites: pytest's summary, collection and collection errors are read per test", () => {
  const summary = [
    "collected 3 items",
    "=========== short test summary info ===========",
    "PASSED kubernetes/e2e_test/test_a.py::T::test_ok",
    "FAILED kubernetes/e2e_test/test_a.py::T::test_bad - AssertionError: 0 != 4",
    "SKIPPED [1] kubernetes/e2e_test/test_a.py:12: flaky",
    "======= 1 failed, 1 passed, 1 skipped in 0.1s =======",
  ].join("\n");
  assertEquals(parsePytestSummary(summary), [
    { name: "kubernetes/e2e_test/test_a.py::T::test_ok", outcome: "pass" },
    {
      name: "kubernetes/e2e_test/test_a.py::T::test_bad",
      outcome: "fail",
      reason: "AssertionError: 0 != 4",
    },
    { name: "kubernetes/e2e_test/test_a.py:12", outcome: "skip", reason: "flaky" },
  ]);
  assertEquals(
    summaryLine("s", parsePytestSummary(summary)),
    "s: 1 passed, 1 failed, 1 skipped (of 3)",
  );
  const collected = [
    "kubernetes/e2e_test/test_a.py::T::test_ok",
    "kubernetes/e2e_test/test_a.py::T::test_bad",
    "",
    "__ ERROR collecting kubernetes/e2e_test/test_b.py __",
    "kubernetes/e2e_test/test_b.py:13: in <module>",
    "E   ModuleNotFoundError: No module named 'kubernetes.informer'",
    "== short test summary info ==",
    "ERROR kubernetes/e2e_test/test_b.py",
    "2 tests collected, 1 error in 0.25s",
  ].join("\n");
  assertEquals(parseCollected(collected), [
    "kubernetes/e2e_test/test_a.py::T::test_ok",
    "kubernetes/e2e_test/test_a.py::T::test_bad",
  ]);
  assertEquals(parseCollectionErrors(collected), [{
    name: "kubernetes/e2e_test/test_b.py",
    outcome: "fail",
    reason: "ModuleNotFoundError: No module named 'kubernetes.informer'",
  }]);
});

Deno.test("peer suites: client-node's modules come in index.ts's order; a failure's reason is the driver's line", () => {
  const index = [
    "import patchNamespace from './patchNamespace.js';",
    "import cpFromPod from './cpFromPod.js';",
    "console.log('Integration testing');",
    "await patchNamespace();",
  ].join("\n");
  assertEquals(testModulesOf(index), ["patchNamespace", "cpFromPod"]);
  assertEquals(
    failureReason("Error: x\n    at y\nPEER-TEST-FAILURE Timed out waiting for ADDED event\n"),
    "Timed out waiting for ADDED event",
  );
  assertEquals(failureReason("killed\n"), "killed");
});

/** The first python3 on PATH with the kubernetes client and pytest, if any. */
async function pythonWithPytest(): Promise<string | undefined> {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":").filter(Boolean)) {
    const python = `${dir}/python3`;
    const probe = await run(python, ["-c", "import kubernetes, pytest"]).catch(() => undefined);
    if (probe?.code === 0) return python;
  }
  return undefined;
}

const python = await pythonWithPytest();

/** A suite laid out as kubernetes-client/python's: `kubernetes/e2e_test/` with a base.py. */
const TINY_SUITE: Record<string, string> = {
  "__init__.py": "",
  "base.py": [
    "import os",
    "from kubernetes.client.configuration import Configuration",
    "from kubernetes.config import kube_config",
    "def get_e2e_configuration():",
    "    config = Configuration()",
    "    kube_config.load_kube_config(os.environ['KUBECONFIG'], client_configuration=config)",
    "    return config",
    "",
  ].join("\n"),
  "test_tiny.py": [
    "import unittest",
    "from kubernetes import watch",
    "from kubernetes.client import api_client",
    "from kubernetes.client.api import core_v1_api",
    "from kubernetes.e2e_test import base",
    "class TestTiny(unittest.TestCase):",
    "    def test_watch(self):",
    "        api = core_v1_api.CoreV1Api(api_client.ApiClient(base.get_e2e_configuration()))",
    "        api.create_namespaced_config_map('default', {'metadata': {'name': 'tiny'}})",
    "        for event in watch.Watch().stream(api.list_namespaced_config_map, 'default',",
    "                                          timeout_seconds=5):",
    "            self.assertEqual(event['object'].metadata.name, 'tiny')",
    "            return",
    "        self.fail('no event')",
    "    def test_fails(self):",
    "        self.assertEqual(1, 2)",
    "    @unittest.skip('on purpose')",
    "    def test_skipped(self):",
    "        pass",
    "",
  ].join("\n"),
};

Deno.test({
  name: "peer suites: a Python suite runs against a fake cluster, with PASS/FAIL/SKIP per test",
  ignore: !python,
  async fn() {
    const copy = await Deno.makeTempDir();
    try {
      await Deno.mkdir(`${copy}/kubernetes/e2e_test`, { recursive: true });
      for (const [name, text] of Object.entries(TINY_SUITE)) {
        await Deno.writeTextFile(`${copy}/kubernetes/e2e_test/${name}`, text);
      }
      const result = await runDeno(
        ["run", "-A", "scripts/peer_suites.ts", "--python", copy, "--python-bin", python!],
        { cwd: ROOT },
      );
      const lines = result.stdout.split("\n");
      const test = "kubernetes/e2e_test/test_tiny.py::TestTiny::";
      assert(lines.includes(`PASS ${test}test_watch`), result.stdout + result.stderr);
      assert(lines.includes(`FAIL ${test}test_fails: AssertionError: 1 != 2`), result.stdout);
      assert(lines.includes(`SKIP ${test}test_skipped: on purpose`), result.stdout);
      assertStringIncludes(result.stdout, "1 passed, 1 failed, 1 skipped (of 3)");
      assertEquals(result.code, 1);
    } finally {
      await Deno.remove(copy, { recursive: true });
    }
  },
});
