/**
 * The old and new essences of a handling cycle: the stored diff-base and the current
 * essence, both without the progress storage's fields.
 */
import { assertEquals } from "../assert.ts";
import { OperatorSettings, StatusDiffBaseStorage, StatusProgressStorage } from "../../src/kopf.ts";
import { loadEssences } from "../../src/settings/essences.ts";
import type { RawBody } from "../../mod.ts";

Deno.test("old and new essences exclude progress fields and tell a real change", async () => {
  const settings = new OperatorSettings({
    persistence: {
      diffbaseStorage: new StatusDiffBaseStorage({ field: "status.base" }),
      progressStorage: new StatusProgressStorage({ field: "status.progress" }),
    },
  });
  const body: RawBody = {
    spec: { a: 2 },
    status: {
      phase: "Running",
      base: '{"spec":{"a":1},"status":{"phase":"Running","progress":{"fn":{}}}}',
      progress: { fn: { retries: 1 } },
    },
  };
  const { old, new: current } = await loadEssences(settings.persistence, body, ["status"]);
  assertEquals(old, { spec: { a: 1 }, status: { phase: "Running" } });
  assertEquals(current, { spec: { a: 2 }, status: { phase: "Running" } });
  const fresh = await loadEssences(new OperatorSettings().persistence, { spec: {} });
  assertEquals(fresh, { old: null, new: { spec: {} } });
});
