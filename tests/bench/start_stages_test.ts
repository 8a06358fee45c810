/**
 * The stages of a bench child's start (`scripts/bench/support/start_stages.ts`), which
 * `bench startup` reads: the line's reading, and the operator's child stamping them in order
 * against a fake cluster, as the bench runs it.
 */
import { parse as parseYaml } from "yaml";
import { stagesOf } from "../../scripts/bench/support/start_stages.ts";
import { ChildProcess, now } from "../../scripts/bench/support/process.ts";
import { FakeCluster } from "../../src/testing/mod.ts";
import type { RawBody } from "../../mod.ts";
import { assert, assertEquals, assertThrows } from "../assert.ts";

Deno.test("a STAGES line reads as ms after the spawn; other lines are not one; a bad time is named", () => {
  const line = 'STAGES {"evaluated":1050.5,"imported":1060,"operator":1062.25,"ready":1090}';
  assertEquals(stagesOf(line, 1000), {
    evaluated: 50.5,
    imported: 60,
    operator: 62.25,
    ready: 90,
  });
  // A child that stamps fewer stages gives fewer; unknown keys are not taken.
  assertEquals(stagesOf('STAGES {"ready":1090,"other":1}', 1000), { ready: 90 });
  assertEquals(stagesOf("READY", 1000), undefined);
  assertEquals(stagesOf('HEAP {"ready":1}', 1000), undefined);
  assertThrows(
    () => stagesOf('STAGES {"imported":"soon"}', 1000),
    Error,
    `The stage imported of the line "STAGES {\\"imported\\":\\"soon\\"}" is not a time.`,
  );
});

Deno.test("the operator's bench child stamps its stages in order before READY", async () => {
  await using cluster = await FakeCluster.start();
  const crd = new URL("../../examples/crd.yaml", import.meta.url);
  cluster.create(parseYaml(await Deno.readTextFile(crd)) as RawBody);
  const kubeconfig = await cluster.writeKubeconfig();
  let stages: ReturnType<typeof stagesOf>;
  const spawned = now();
  await using child = new ChildProcess([
    new URL("../../scripts/bench/compare/kopf.ts", import.meta.url).pathname,
    cluster.url,
    kubeconfig,
  ], {
    onLine: (line) => {
      stages ??= stagesOf(line, spawned);
      return false;
    },
  });
  await child.expect("READY");
  assert(stages !== undefined, "no STAGES line before READY");
  const { evaluated, imported, operator, ready } = stages;
  const order = [evaluated, imported, operator, ready];
  assert(order.every((at) => at !== undefined && at > 0), JSON.stringify(stages));
  assertEquals([...order].sort((a, b) => a! - b!), order, JSON.stringify(stages));
  // READY follows the first WATCH of the objects, which the cluster got after the operator().
  const watch = cluster.requests.find((r) =>
    r.verb === "watch" && r.path.endsWith("/kopfexamples")
  );
  assert(watch !== undefined, "no WATCH of the objects");
  const watched = watch.time.getTime() - spawned;
  assert(
    operator! <= watched + 1 && watched <= ready! + 1,
    `${watched} ms: ${JSON.stringify(stages)}`,
  );
});
