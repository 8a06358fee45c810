/** examples/11-filtering-handlers: labels, annotations, fields and callbacks as filters. */
import { assert } from "../assert.ts";
import { clusterWithCrd, KIND, LAST_HANDLED, NAME, runUntilSettled, settled } from "./helpers.ts";

Deno.test("11-filtering-handlers: only the handlers whose filters match run", async () => {
  await using cluster = await clusterWithCrd();
  const runner = await runUntilSettled("11-filtering-handlers", cluster);
  await runner.waitForOutput(`[default/${NAME}] Field daemon is satisfied.`);
  cluster.patch(KIND, NAME, { spec: { field: "changed" } });
  await cluster.waitFor(
    KIND,
    NAME,
    (o) => settled(o) && o!.metadata!.annotations![LAST_HANDLED].includes('"changed"'),
  );
  await runner.waitForOutput(`[default/${NAME}] Field change is satisfied.`);
  // The field no longer has the daemon's value: the daemon is stopped.
  await runner.waitForOutput(`[default/${NAME}] Field daemon is stopped: filters-mismatch.`);
  cluster.delete(KIND, NAME);
  await cluster.waitFor(KIND, NAME, (o) => o === undefined);
  await runner.stop();

  const said = (text: string) => runner.lines.some((l) => l.includes(`[default/${NAME}] ${text}`));
  for (
    const text of [
      "Label is matching.",
      "Label is present.",
      "Label is absent.",
      "Label callback matching.",
      "Annotation is matching.",
      "Annotation is present.",
      "Annotation is absent.",
      "Filter satisfied.",
      "Field value is satisfied.",
      "Field presence is satisfied.",
      "Field daemon is satisfied.",
    ]
  ) assert(said(text), `said: ${text}`);
  for (
    const text of [
      "Annotation callback mismatch.",
      "Filter not satisfied.",
      "Field value is not satisfied.",
      "Field presence is not satisfied.",
    ]
  ) assert(!said(text), `not said: ${text}`);
});
