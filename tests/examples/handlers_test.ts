/** examples/05-handlers: create, update, field, delete, and resume after a restart. */
import { assert, assertEquals } from "../assert.ts";
import {
  clusterWithCrd,
  KIND,
  LAST_HANDLED,
  NAME,
  runExample,
  runUntilSettled,
  settled,
} from "./helpers.ts";

function before(lines: readonly string[], first: string, second: string): boolean {
  const a = lines.findIndex((l) => l.includes(first));
  const b = lines.findIndex((l) => l.includes(second));
  return a >= 0 && b > a;
}

Deno.test("05-handlers: every cause runs its handlers in order, once", async () => {
  await using cluster = await clusterWithCrd();
  const first = await runUntilSettled("05-handlers", cluster);
  await first.waitForOutput("CREATED 2nd");
  assert(before(first.lines, "CREATED 1st", "CREATED 2nd"), first.output);

  cluster.patch(KIND, NAME, { spec: { field: "changed" } });
  await cluster.waitFor(
    KIND,
    NAME,
    (o) => settled(o) && o!.metadata!.annotations![LAST_HANDLED].includes('"changed"'),
  );
  await first.waitForOutput(`FIELD CHANGED: "value" -> "changed"`);
  const updated = await first.waitForOutput("UPDATED:");
  assert(updated.includes('["change",["spec","field"],"value","changed"]'), updated);
  await first.stop();
  assertEquals(first.exitCode, 0);
  // Field handlers see creations too: from null to the first value.
  const texts = ["CREATED 1st", "CREATED 2nd", "UPDATED", `FIELD CHANGED: null -> "value"`];
  for (const text of [...texts, `FIELD CHANGED: "value" -> "changed"`]) {
    assertEquals(first.lines.filter((l) => l.includes(text)).length, 1, text);
  }

  // A new operator process finds the object: the resume handlers run, nothing else.
  const second = await runExample("05-handlers", cluster);
  await second.waitForOutput("RESUMED 2nd");
  assert(before(second.lines, "RESUMED 1st", "RESUMED 2nd"), second.output);

  const deleting = cluster.delete(KIND, NAME);
  assertEquals(deleting?.metadata?.finalizers, ["kopf.zalando.org/KopfFinalizerMarker"]);
  await cluster.waitFor(KIND, NAME, (o) => o === undefined);
  assert(before(second.lines, "DELETED 1st", "DELETED 2nd"), second.output);
  await second.stop();
  assertEquals(second.exitCode, 0);
  for (const text of ["CREATED", "UPDATED", "FIELD CHANGED"]) {
    assert(!second.lines.some((l) => l.includes(text)), `no ${text} after a restart`);
  }
});
