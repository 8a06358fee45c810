/**
 * The exit-code table of the `kopf` command line (docs/configuration.md), walked for every
 * subcommand as a user runs them: a usage mistake exits with 2 (after a hint at the help),
 * a failure of the work with 1 (without one), `--help` and `--version` with 0. The table of
 * cases names every subcommand that `buildCli()` has, so a new one cannot be left out.
 */
import { runKopf as kopf } from "./kopf_command.ts";
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { buildCli } from "../../src/cli/main.ts";
import { FakeCluster } from "../../src/testing/mod.ts";

/** One row of the table: the command line, and what its message must say. */
interface Case {
  readonly args: readonly string[];
  readonly says: string;
  readonly stdin?: string;
}

/** What each subcommand does wrong: a usage mistake, and a failure where it can fail. */
interface Row {
  readonly usage: Case;
  /** A failure of the work; `null` with the reason where there is none to cause. */
  readonly failure: Case;
}

Deno.test("every subcommand: a usage mistake exits with 2, a failure of its work with 1", async () => {
  const dir = await Deno.makeTempDir();
  // An operator whose module imports a file with a syntax error; one that throws on load.
  await Deno.writeTextFile(`${dir}/broken.ts`, "export const a = 1;\nexport const b = a +* 2;\n");
  await Deno.writeTextFile(
    `${dir}/operator.ts`,
    'import { b } from "./broken.ts";\nconsole.log(b);\n',
  );
  await Deno.writeTextFile(`${dir}/throwing.ts`, 'throw new Error("no settings file");\n');
  await Deno.writeTextFile(`${dir}/a-file`, "");
  // A cluster that serves no peering resources: freezing and resuming fail there.
  await using cluster = await FakeCluster.start();
  const kubeconfig = await cluster.writeKubeconfig(`${dir}/kubeconfig`);
  const busy = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    const table: Record<string, Row> = {
      run: {
        usage: { args: ["run", "-A", "absent.ts"], says: "Cannot load absent.ts: no such file." },
        failure: {
          args: ["run", "-A", `${dir}/operator.ts`],
          says: "SyntaxError: Expression expected at ",
        },
      },
      freeze: {
        usage: { args: ["freeze", "-A"], says: "kopf freeze needs --lifetime" },
        failure: {
          args: ["freeze", "-A", "-t", "60", "--kubeconfig", kubeconfig],
          says: "The ClusterKopfPeering resource is not served",
        },
      },
      resume: {
        usage: { args: ["resume", "-A", "-n", "x"], says: "Use either -n/--namespace or -A" },
        failure: {
          args: ["resume", "-A", "--kubeconfig", kubeconfig],
          says: "The ClusterKopfPeering resource is not served",
        },
      },
      permissions: {
        usage: {
          args: ["permissions", "--in-cluster", "--listen", "nowhere"],
          says: "is not host:port",
        },
        failure: { args: ["permissions"], says: "No Kubernetes configuration found" },
      },
      "fake-cluster": {
        usage: { args: ["fake-cluster", "--http", "--tls"], says: "exclude each other" },
        failure: {
          args: ["fake-cluster", "--http", "--port", String(busy.addr.port)],
          says: `kopf fake-cluster: `,
        },
      },
      types: {
        usage: { args: ["types"], says: "missing required argument 'files'" },
        failure: {
          args: ["types", "-"],
          stdin: "kind: CustomResourceDefinition\napiVersion: apiextensions.k8s.io/v1\n",
          says: "the CRD has no spec.names.kind",
        },
      },
      manifests: {
        usage: { args: ["manifests", "-A", "--bogus"], says: "unknown option '--bogus'" },
        failure: {
          args: ["manifests", "-A", `${dir}/throwing.ts`],
          says: "Error: no settings file at ",
        },
      },
      simulate: {
        usage: { args: ["simulate", "--scenario", `${dir}/a-file`], says: "exports no scenario" },
        failure: {
          args: [
            "simulate",
            "tests/fixtures/simulation/counting_operator.ts",
            "--scenario",
            "tests/fixtures/simulation/counting_scenario.ts",
            "--seeds",
            "5",
          ],
          says: "broke an invariant",
        },
      },
      init: {
        usage: { args: ["init", "--kind", "widget", `${dir}/new`], says: "is not a kind" },
        failure: { args: ["init", `${dir}/a-file/new`], says: "kopf init: " },
      },
    };
    const subcommands = (buildCli() as unknown as { commands: { name(): string }[] }).commands
      .map((c) => c.name());
    assertEquals(Object.keys(table).sort(), subcommands.sort(), "every subcommand has a row");

    const cases: [Case, number][] = [
      ...Object.values(table).flatMap((
        row,
      ): [Case, number][] => [[row.usage, 2], [row.failure, 1]]),
      [{ args: ["bogus"], says: "unknown command 'bogus'" }, 2],
      [{ args: ["--help"], says: "" }, 0],
      [{ args: ["run", "--help"], says: "" }, 0],
      [{ args: ["--version"], says: "" }, 0],
    ];
    const results = await Promise.all(cases.map(([c]) => kopf(c.args, c.stdin)));
    cases.forEach(([c, expected], i) => {
      const { code, stderr } = results[i];
      const what = `kopf ${c.args.join(" ")}:\n${stderr}`;
      assertEquals(code, expected, what);
      assertStringIncludes(stderr, c.says, what);
      if (expected === 2) assertStringIncludes(stderr, "--help'.", what);
      if (expected === 1) assert(!stderr.includes("--help'."), what);
    });
  } finally {
    busy.close();
    await Deno.remove(dir, { recursive: true });
  }
});
