import { assertEquals, assertStringIncludes } from "../../assert.ts";
import { Resource } from "../../../src/structs/resources.ts";
import type { ObservedEvent } from "../../../src/structs/bodies.ts";
import { MetricsRegistry } from "../../../src/structs/metrics.ts";
import { OperatorMetrics } from "../../../src/structs/operator_metrics.ts";
import { Intake } from "../../../src/reactor/queueing/intake.ts";
import { ObjectTable } from "../../../src/reactor/objects/object_table.ts";
import { wholeEvent } from "../../../src/reactor/objects/deferred_states.ts";

const KEX = new Resource({
  group: "kopf.dev",
  version: "v1",
  plural: "kopfexamples",
  kind: "KopfExample",
  verbs: ["list", "watch", "patch"],
});

function setup(options: { passes: boolean; judgesByIdentity: boolean }) {
  const pushed: ObservedEvent[] = [];
  const records: unknown[] = [];
  const registry = new MetricsRegistry();
  const intake = new Intake(
    {
      skips: () => false,
      expect: () => {},
      judgesByIdentity: () => options.judgesByIdentity,
    },
    {
      push: (_resource, event, _again, known) => {
        pushed.push(event);
        records.push(known);
      },
      passEcho: () => options.passes,
    },
    new OperatorMetrics(registry),
  );
  const table = new ObjectTable(undefined);
  const entry = table.entry(KEX, { metadata: { uid: "u", name: "x", namespace: "ns" } });
  const received = () =>
    registry.expose().split("\n").filter((line) => line.startsWith("kopf_events_received_total"));
  return { intake, entry, pushed, records, received };
}

const object = { namespace: "ns", uid: "u", resourceVersion: "7" };
const text = JSON.stringify({
  type: "MODIFIED",
  object: { metadata: { name: "x", namespace: "ns", uid: "u", resourceVersion: "7" } },
});

Deno.test("the intake takes a state passed by at once, counted as received", () => {
  const t = setup({ passes: true, judgesByIdentity: false });
  assertEquals(t.intake.takes(t.entry, object, text), true);
  assertEquals(t.pushed, []);
  assertEquals(t.received().length, 1);
  assertStringIncludes(t.received()[0], 'type="MODIFIED"} 1');
});

Deno.test("the intake queues a state unparsed for an object's worker, if the gate judges by identity", () => {
  const t = setup({ passes: false, judgesByIdentity: true });
  assertEquals(t.intake.takes(t.entry, object, text), false, "no worker: fed as usual");
  t.entry.work = { entry: t.entry };
  assertEquals(t.intake.takes(t.entry, object, text), true);
  assertEquals(t.pushed.length, 1);
  assertEquals(t.pushed[0].object, { metadata: object });
  assertEquals(t.records[0] === t.entry, true, "its record handed on, not looked up again");
  assertEquals(wholeEvent(t.pushed[0]), JSON.parse(text));
  assertEquals(t.received().length, 1);
  const judging = setup({ passes: false, judgesByIdentity: false });
  judging.entry.work = { entry: judging.entry };
  assertEquals(judging.intake.takes(judging.entry, object, text), false, "the gate needs bodies");
  assertEquals(judging.pushed, []);
  assertEquals(judging.received(), []);
});
