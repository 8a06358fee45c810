/**
 * `kopf freeze` and `kopf resume`: the flags and their defaults, the record written into
 * the peering objects in Kopf's format, a running operator pausing for a freeze and going
 * on after the resume, missing peering objects and resources, and the command line itself.
 */
import {
  assert,
  assertEquals,
  assertEventually,
  assertMatch,
  assertRejects,
  assertStringIncludes,
  assertThrows,
} from "../assert.ts";
import type { RawBody } from "../../src/structs/bodies.ts";
import { manualIdentity } from "../../src/engines/peer_records.ts";
import { PeeringConfigurationError } from "../../src/engines/peering.ts";
import {
  executePeeringCommand,
  freezeCommand,
  planPeeringCommand,
  resumeCommand,
} from "../../src/commands/freeze.ts";
import { CommandLineError } from "../../src/commands/run_options.ts";
import { on } from "../../src/intents/registration.ts";
import type { FakeCluster } from "../../src/testing/mod.ts";
import {
  Calls,
  clusterRegistry,
  kex,
  peeringCluster,
  startCluster,
  startOperator,
  testSettings,
} from "../operator/harness.ts";

const IN_DEFAULT = { namespace: "default" };
const LASTSEEN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}$/;

function records(body: RawBody | undefined): Record<string, Record<string, unknown>> {
  return (body?.status ?? {}) as Record<string, Record<string, unknown>>;
}

/** Run `kopf freeze|resume <args>` in-process against the cluster; its log lines. */
async function command(
  name: "freeze" | "resume",
  args: string[],
  cluster: FakeCluster,
): Promise<string[]> {
  const lines: string[] = [];
  const context = {
    login: () => Promise.resolve(cluster.connectionInfo),
    writer: (line: string) => lines.push(line),
    embedded: true,
  };
  const cli = name === "freeze" ? freezeCommand(context) : resumeCommand(context);
  await cli.parseAsync(["--log-format", "plain", ...args], { from: "user" });
  return lines;
}

Deno.test("the flags: Kopf's defaults, --dev, and what is refused", () => {
  const freeze = planPeeringCommand("freeze", { lifetime: 60 });
  assertEquals(freeze.identity, manualIdentity());
  assertEquals(
    [freeze.peeringName, freeze.priority, freeze.lifetime, freeze.clusterwide],
    ["default", 100, 60, true],
  );
  assertStringIncludes(freeze.warnings[0], "Neither -n/--namespace nor -A/--all-namespaces");
  assertEquals(planPeeringCommand("freeze", { lifetime: 1, dev: true }).priority, 666);
  const resume = planPeeringCommand("resume", { namespace: ["team-*"], id: "me", peering: "p" });
  assertEquals(
    [resume.identity, resume.peeringName, resume.lifetime, resume.clusterwide, resume.namespaces],
    ["me", "p", 0, false, ["team-*"]],
  );
  assertEquals(resume.warnings, []);
  assertThrows(
    () => planPeeringCommand("freeze", {}),
    CommandLineError,
    "kopf freeze needs --lifetime",
  );
  assertThrows(
    () => planPeeringCommand("resume", { allNamespaces: true, namespace: ["x"] }),
    CommandLineError,
    "either -n/--namespace or -A/--all-namespaces",
  );
  assertThrows(
    () => planPeeringCommand("resume", { verbose: true, quiet: true }),
    CommandLineError,
    "Use only one of --verbose, --debug and --quiet.",
  );
  assertThrows(() => planPeeringCommand("resume", { id: " " }), CommandLineError, "--id needs");
  // The identity is the same for every call from one place: resume finds what freeze wrote.
  assertEquals(manualIdentity(), manualIdentity());
  assert(!manualIdentity().includes("/"), "user@host, without a start time");
});

Deno.test("a freeze pauses the operators of the peering; resume lets them go on", async () => {
  await using cluster = await peeringCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls();
  on.create("kopfexamples", { registry }, ({ name }) => calls.add(String(name)));
  const lines: string[] = [];
  const logger = {
    debug: () => {},
    info: (m: string) => lines.push(m),
    warning: (m: string) => lines.push(m),
    error: (m: string) => lines.push(m),
  };
  const op = await startOperator(registry, {
    standalone: false,
    settings: testSettings({ peering: { lifetime: 5 } }),
    logger,
  });
  try {
    const frozen = await command("freeze", [
      "-n",
      "default",
      "--lifetime",
      "600",
      "--message",
      "maintenance",
      "--id",
      "admin@laptop",
    ], cluster);
    assert(
      frozen.some((l) => l.includes('Frozen: the peering KopfPeering "default" in')),
      frozen.join("\n"),
    );
    const record = records(cluster.get("kopfpeerings", "default", IN_DEFAULT))["admin@laptop"];
    // Kopf's fields, and no others (kube-apiserver gives a custom resource's keys sorted).
    assertEquals(Object.keys(record), ["lastseen", "lifetime", "message", "priority"]);
    assertEquals([record.priority, record.lifetime, record.message], [100, 600, "maintenance"]);
    assertMatch(String(record.lastseen), LASTSEEN);
    await assertEventually(
      "the operator to pause",
      () =>
        lines.some((l) =>
          l.includes("Pausing operations") &&
          l.includes('admin@laptop (priority 100: "maintenance")')
        ),
    );
    cluster.create(kex("while-frozen"));
    assertEquals(calls.list, [], "a paused operator handles nothing");

    const resumed = await command("resume", ["-n", "default", "-i", "admin@laptop"], cluster);
    assert(resumed.some((l) => l.includes('Resumed: the freeze "admin@laptop" is removed')));
    assert(!("admin@laptop" in records(cluster.get("kopfpeerings", "default", IN_DEFAULT))));
    await calls.until(1, (name) => name === "while-frozen");
    assert(lines.some((l) => l.includes("Resuming operations")), lines.join("\n"));
  } finally {
    await op.stop();
  }
});

Deno.test("cluster-wide and by pattern: the peering objects that exist get the record", async () => {
  await using cluster = await peeringCluster();
  cluster.create({
    apiVersion: "kopf.dev/v1",
    kind: "ClusterKopfPeering",
    metadata: { name: "default" },
  });
  await command("freeze", ["-A", "-t", "30", "-p", "7"], cluster);
  const clusterwide = records(cluster.get("clusterkopfpeerings", "default"));
  assertEquals(clusterwide[manualIdentity()]?.priority, 7);
  assertEquals(clusterwide[manualIdentity()]?.message, undefined);

  // "*" matches default, kube-system and kube-public; only default has a peering object.
  const lines = await command("freeze", ["-n", "*", "-t", "30", "--dev"], cluster);
  assertEquals(
    records(cluster.get("kopfpeerings", "default", IN_DEFAULT))[manualIdentity()]?.priority,
    666,
  );
  assert(lines.some((l) => l.includes('in "kube-system" does not exist: nothing to freeze')));
  await command("resume", ["-A"], cluster);
  assertEquals(records(cluster.get("clusterkopfpeerings", "default")), {});
});

Deno.test("without a peering object or its resource: a clear failure; resume only warns", async () => {
  await using bare = await startCluster();
  await assertRejects(
    () => command("freeze", ["-n", "default", "-t", "10"], bare),
    PeeringConfigurationError,
    "The KopfPeering resource is not served, so there is no peering to freeze: apply " +
      "Kopf's peering CRDs (examples/peering.yaml)",
  );
  await using cluster = await peeringCluster({ object: false });
  await assertRejects(
    () => command("freeze", ["-n", "default", "-t", "10", "-P", "other"], cluster),
    PeeringConfigurationError,
    'No peering object to freeze: KopfPeering "other" in "default" does not exist.',
  );
  const lines = await command("resume", ["-n", "default"], cluster);
  assert(
    lines.some((l) => l.includes("does not exist: nothing to resume there")),
    lines.join("\n"),
  );
  await assertRejects(
    () =>
      executePeeringCommand(planPeeringCommand("resume", { namespace: ["nothing-*"] }), {
        login: () => Promise.resolve(cluster.connectionInfo),
        writer: () => {},
      }),
    CommandLineError,
    "No namespace matches nothing-*.",
  );
});

Deno.test("kopf freeze and kopf resume on the command line, with a kubeconfig", async () => {
  await using cluster = await peeringCluster();
  const kubeconfig = await cluster.writeKubeconfig();
  const main = new URL("../../src/cli/main.ts", import.meta.url).pathname;
  const kopf = async (...args: string[]) => {
    const { code, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", main, ...args, "--kubeconfig", kubeconfig, "-n", "default", "-q"],
      env: { NO_COLOR: "1", POD_ID: "maintenance-job" },
      stdout: "null",
      stderr: "piped",
    }).output();
    return { code, stderr: new TextDecoder().decode(stderr) };
  };
  const frozen = await kopf("freeze", "-t", "60");
  assertEquals(frozen.code, 0, frozen.stderr);
  assertEquals(frozen.stderr, "", "quiet: nothing but warnings");
  const record = records(cluster.get("kopfpeerings", "default", IN_DEFAULT))["maintenance-job"];
  assertEquals([record?.priority, record?.lifetime], [100, 60]);
  const resumed = await kopf("resume");
  assertEquals(resumed.code, 0, resumed.stderr);
  assertEquals(records(cluster.get("kopfpeerings", "default", IN_DEFAULT)), {});
  const refused = await kopf("freeze", "-t", "never");
  assertEquals(refused.code, 2);
  assertStringIncludes(refused.stderr, "the lifetime must be a whole number of seconds");
});
