/**
 * Peering of real operators against the fake cluster: the own record in Kopf's format,
 * refreshed and removed on exit; the lower priority pausing while a higher one lives and
 * resuming when it leaves or its record expires; equal priorities warning and pausing
 * all; a mandatory peering without its object pausing until it exists, and without its
 * resource failing in one line; standalone ignoring all of it.
 */
import {
  assert,
  assertEquals,
  assertEventually,
  assertMatch,
  assertRejects,
  assertStringIncludes,
} from "../assert.ts";
import type { RawBody } from "../../src/structs/bodies.ts";
import type { OperatorSettingsInit } from "../../src/settings/operator_settings.ts";
import { on } from "../../src/intents/registration.ts";
import type { OperatorRegistry } from "../../src/intents/registry.ts";
import { formatLastseen } from "../../src/engines/peer_records.ts";
import type { Logger } from "../../src/structs/loggers.ts";
import type { OperatorOptions } from "../../src/reactor/operator_options.ts";
import type { FakeCluster } from "../../src/testing/mod.ts";
import {
  Calls,
  clusterRegistry,
  handled,
  kex,
  peeringCluster,
  type RunningOperator,
  startCluster,
  startOperator,
  testSettings,
} from "./harness.ts";

const PEERING = "kopfpeerings";
const IN_DEFAULT = { namespace: "default" };
const LASTSEEN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}$/;

/** The records in the default peering object. */
function records(body: RawBody | undefined): Record<string, Record<string, unknown>> {
  return (body?.status ?? {}) as Record<string, Record<string, unknown>>;
}

/** A logger keeping the lines of one operator. */
function captured(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    debug: (m) => lines.push(`DEBUG ${m}`),
    info: (m) => lines.push(`INFO ${m}`),
    warning: (m) => lines.push(`WARNING ${m}`),
    error: (m) => lines.push(`ERROR ${m}`),
  };
}

/** An operator recording the names of the objects its creation handler saw. */
async function peerOperator(
  cluster: FakeCluster,
  peering: OperatorSettingsInit["peering"],
  options: Partial<OperatorOptions> = {},
): Promise<{ op: RunningOperator; calls: Calls; logger: ReturnType<typeof captured> }> {
  const registry: OperatorRegistry = clusterRegistry(cluster);
  const calls = new Calls();
  on.create("kopfexamples", { registry }, ({ name }) => calls.add(String(name)));
  const logger = captured();
  const op = await startOperator(registry, {
    standalone: false,
    settings: testSettings({ peering: { lifetime: 2, ...peering } }),
    logger,
    ...options,
  });
  return { op, calls, logger };
}

Deno.test("an operator keeps its record in Kopf's format, refreshes it, and removes it on exit", async () => {
  await using cluster = await peeringCluster();
  // Records as Python Kopf writes them: a dead operator's and a live one of lower priority.
  cluster.patch(PEERING, "default", {
    status: {
      "gone@host/2000-01-01T00:00:00/abc": {
        priority: 50,
        lifetime: 60,
        lastseen: "2000-01-01T00:00:00",
      },
      "python@host/x": { priority: 1, lifetime: 60, lastseen: formatLastseen(Date.now()) },
    },
  }, IN_DEFAULT);
  const { op, calls, logger } = await peerOperator(cluster, { priority: 7 });
  let identity = "";
  try {
    const first = await cluster.waitFor(PEERING, "default", (body) => {
      const ids = Object.keys(records(body));
      return ids.length === 2 && ids.includes("python@host/x");
    }, IN_DEFAULT);
    identity = Object.keys(records(first)).find((id) => id !== "python@host/x")!;
    const record = records(first)[identity];
    assertEquals(Object.keys(record).sort(), ["lastseen", "lifetime", "priority"]);
    assertEquals([record.priority, record.lifetime], [7, 2]);
    assertMatch(String(record.lastseen), LASTSEEN);
    assert(Math.abs(Date.parse(`${record.lastseen}Z`) - Date.now()) < 5000, "UTC, without a zone");
    // Refreshed before it expires.
    const refreshed = await cluster.waitFor(
      PEERING,
      "default",
      (body) => records(body)[identity]?.lastseen !== record.lastseen,
      IN_DEFAULT,
    );
    const next = Date.parse(`${records(refreshed)[identity].lastseen}Z`);
    assert(next - Date.parse(`${record.lastseen}Z`) < 2000, "within the lifetime");
    // The lower priority does not pause it.
    cluster.create(kex("served"));
    await calls.until(1, (name) => name === "served");
    assert(!logger.lines.some((line) => line.includes("Pausing")), logger.lines.join("\n"));
  } finally {
    await op.stop();
  }
  assertEquals(Object.keys(records(cluster.get(PEERING, "default", IN_DEFAULT))), [
    "python@host/x",
  ]);
});

Deno.test("the lower priority pauses while the higher one runs, and resumes when it leaves", async () => {
  await using cluster = await peeringCluster();
  const high = await peerOperator(cluster, { priority: 10 });
  let low: Awaited<ReturnType<typeof peerOperator>> | undefined;
  try {
    await cluster.waitFor(
      PEERING,
      "default",
      (b) => Object.keys(records(b)).length === 1,
      IN_DEFAULT,
    );
    low = await peerOperator(cluster, { priority: 5 });
    const lowLines = low.logger.lines;
    await cluster.waitFor(
      PEERING,
      "default",
      (b) => Object.keys(records(b)).length === 2,
      IN_DEFAULT,
    );
    assert(
      lowLines.some((l) => l.includes("Pausing operations in favour of")),
      lowLines.join("\n"),
    );
    assert(lowLines.some((l) => l.includes("(priority 10)")));
    assert(!high.logger.lines.some((l) => l.includes("Pausing")), high.logger.lines.join("\n"));

    cluster.create(kex("while-high"));
    await high.calls.until(1, (name) => name === "while-high");
    await cluster.waitFor("kopfexamples", "while-high", handled);
    assertEquals(low.calls.list, [], "the paused operator handles nothing");

    await high.op.stop();
    await low.calls.until(0); // nothing pending
    await assertEventually(
      "the low one to resume",
      () => lowLines.some((l) => l.includes("Resuming")),
    );
    cluster.create(kex("after-high"));
    await low.calls.until(1, (name) => name === "after-high");
    assertEquals(low.calls.list, ["after-high"], "what the high one handled stays handled");
  } finally {
    await high.op.stop();
    await low?.op.stop();
  }
});

Deno.test("a higher priority whose record expires stops pausing the lower one; its record is removed", async () => {
  await using cluster = await peeringCluster();
  // An operator that died without leaving: its record expires in about a second.
  cluster.patch(PEERING, "default", {
    status: {
      "crashed@host/x": { priority: 100, lifetime: 1, lastseen: formatLastseen(Date.now()) },
    },
  }, IN_DEFAULT);
  const started = Date.now();
  const low = await peerOperator(cluster, {});
  try {
    cluster.create(kex("while-paused"));
    await low.calls.until(1, (name) => name === "while-paused");
    assert(Date.now() - started >= 900, "not before the record expired");
    const lines = low.logger.lines;
    assert(lines.some((l) => l.includes("crashed@host/x (priority 100)")), lines.join("\n"));
    assert(lines.some((l) => l.includes("Resuming")), lines.join("\n"));
    await cluster.waitFor(
      PEERING,
      "default",
      (body) => !("crashed@host/x" in records(body)),
      IN_DEFAULT,
    );
  } finally {
    await low.op.stop();
  }
});

Deno.test("equal priorities warn and pause all of them, as Kopf does; a distinct one resumes", async () => {
  await using cluster = await peeringCluster();
  const first = await peerOperator(cluster, { priority: 3 });
  let second: Awaited<ReturnType<typeof peerOperator>> | undefined;
  try {
    await cluster.waitFor(
      PEERING,
      "default",
      (b) => Object.keys(records(b)).length === 1,
      IN_DEFAULT,
    );
    second = await peerOperator(cluster, { priority: 3 });
    const both = [first, second];
    for (const { logger } of both) {
      await assertEventually(
        "a warning about the same priority",
        () =>
          logger.lines.some((l) => l.startsWith("WARNING Operators with the same priority (3)")),
      );
      await assertEventually(
        "the pause",
        () => logger.lines.includes("INFO Pausing the watching of objects."),
      );
    }
    cluster.create(kex("conflicted"));
    // The second one leaves: the first one resumes and handles what was created meanwhile.
    await second.op.stop();
    await first.calls.until(1, (name) => name === "conflicted");
    assertEquals(second.calls.list, [], "it was paused until it left");
  } finally {
    await first.op.stop();
    await second?.op.stop();
  }
});

Deno.test("a mandatory peering pauses until its object exists; without its resource, it fails in one line", async () => {
  {
    await using cluster = await peeringCluster({ object: false });
    const { op, calls, logger } = await peerOperator(cluster, {}, { peeringName: "team" });
    try {
      const warning = logger.lines.find((l) => l.includes("mandatory peering object"));
      assert(warning !== undefined, logger.lines.join("\n"));
      assertStringIncludes(warning, 'KopfPeering "team" in "default" does not exist');
      assertStringIncludes(warning, "kubectl apply -f -");
      assertStringIncludes(
        warning,
        '{"apiVersion":"kopf.dev/v1","kind":"KopfPeering","metadata":{"namespace":"default","name":"team"}}',
      );
      assert(logger.lines.includes("INFO Pausing the watching of objects."), "paused at the start");
      cluster.create(kex("early"));
      cluster.create({
        apiVersion: "kopf.dev/v1",
        kind: "KopfPeering",
        metadata: { namespace: "default", name: "team" },
      });
      await calls.until(1, (name) => name === "early");
      assert(logger.lines.includes("INFO Resuming the watching of objects."));
      const body = await cluster.waitFor(
        PEERING,
        "team",
        (b) => Object.keys(records(b)).length === 1,
        IN_DEFAULT,
      );
      assertEquals(Object.values(records(body))[0].priority, 0);
    } finally {
      await op.stop();
    }
  }
  await using bare = await startCluster();
  const registry = clusterRegistry(bare);
  on.create("kopfexamples", { registry }, () => {});
  const error = await assertRejects(() =>
    startOperator(registry, { standalone: false, peeringName: "team", settings: testSettings() })
  );
  assertStringIncludes(error.message, 'The peering "team" is mandatory, but the KopfPeering');
  assertStringIncludes(error.message, "examples/peering.yaml");
  assert(!error.message.includes("\n"));
});

Deno.test("standalone ignores the peering: no pause for a higher priority, no record", async () => {
  await using cluster = await peeringCluster();
  cluster.patch(PEERING, "default", {
    status: {
      "boss@host/x": { priority: 1000, lifetime: 60, lastseen: formatLastseen(Date.now()) },
    },
  }, IN_DEFAULT);
  for (const how of ["option", "setting"] as const) {
    const { op, calls } = await peerOperator(
      cluster,
      how === "setting" ? { standalone: true } : {},
      how === "option" ? { standalone: true } : {},
    );
    try {
      cluster.create(kex(`alone-by-${how}`));
      await calls.until(1, (name) => name === `alone-by-${how}`);
    } finally {
      await op.stop();
    }
    assertEquals(Object.keys(records(cluster.get(PEERING, "default", IN_DEFAULT))), [
      "boss@host/x",
    ]);
  }
  const patches = cluster.requests.filter((r) => r.method === "PATCH" && r.path.includes(PEERING));
  assertEquals(patches.length, 0);
});

Deno.test("a cluster-wide operator peers in the ClusterKopfPeering", async () => {
  await using cluster = await peeringCluster();
  cluster.create({
    apiVersion: "kopf.dev/v1",
    kind: "ClusterKopfPeering",
    metadata: { name: "default" },
  });
  const { op } = await peerOperator(cluster, { priority: 2 }, {
    namespaces: [],
    clusterwide: true,
  });
  try {
    const body = await cluster.waitFor(
      "clusterkopfpeerings",
      "default",
      (b) => Object.keys(records(b)).length === 1,
    );
    assertEquals(Object.values(records(body))[0].priority, 2);
    assertEquals(records(cluster.get(PEERING, "default", IN_DEFAULT)), {});
  } finally {
    await op.stop();
  }
  assertEquals(records(cluster.get("clusterkopfpeerings", "default")), {});
});
