/**
 * The test of `example.ts`, as an operator's developers would write it: no real cluster,
 * no sleeps — the fake cluster and the runner say when something has happened.
 *
 *   deno test --allow-all examples/09-testing/example_test.ts
 */
import { parse } from "yaml";
import { FakeCluster, KopfRunner } from "../../src/testing/mod.ts";
import type { RawBody } from "../../mod.ts";

const here = (path: string) => new URL(path, import.meta.url);
const crd = parse(await Deno.readTextFile(here("../crd.yaml"))) as RawBody;
const obj = parse(await Deno.readTextFile(here("../obj.yaml"))) as RawBody;

Deno.test("09-testing: the operator logs the creation and the deletion of an object", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(crd);
  await using runner = await KopfRunner.start(
    ["run", "-A", "--verbose", "--standalone", here("example.ts").pathname],
    { cluster },
  );

  // Do something while the operator is running.
  cluster.create(obj);
  await runner.waitForOutput("[default/kopf-example-1] Something was logged here.");
  cluster.delete("kopfexamples.kopf.dev", "kopf-example-1");
  await cluster.waitFor("kopfexamples.kopf.dev", "kopf-example-1", (o) => o === undefined);
  await runner.stop();

  // The operator did not die on start or while running, and said what it should.
  if (runner.exitCode !== 0 || runner.error !== undefined) {
    throw new Error(`The operator failed: ${runner.error}\n${runner.output}`);
  }
  for (const expected of ["Creation event: {", "Deletion event: kopf-example-1"]) {
    if (!runner.output.includes(`[default/kopf-example-1] ${expected}`)) {
      throw new Error(`"${expected}" is not in the output:\n${runner.output}`);
    }
  }
});
