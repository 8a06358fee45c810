/**
 * Testing an operator: this operator logs when an object is created and deleted, and
 * `example_test.ts` beside it tests it the way an operator's own tests would — on a
 * `FakeCluster` (an in-memory API server over HTTP), with the operator running in the
 * background of the test in a `KopfRunner`, exactly as `kopf run` runs it.
 *
 *   deno test --allow-all examples/09-testing/example_test.ts
 *   kopf run -A --verbose examples/09-testing/example.ts     # or against a real cluster
 */
import { kopf } from "../../mod.ts";

kopf.on.create("kopfexamples", function createFn({ spec, logger }) {
  logger.info(`Creation event: ${JSON.stringify(spec)}`);
  logger.info("Something was logged here.");
});

kopf.on.delete("kopfexamples", function deleteFn({ name, logger }) {
  logger.info(`Deletion event: ${name}`);
});
