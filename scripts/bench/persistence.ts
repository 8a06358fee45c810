/**
 * Persistence costs per handling cycle: the essence and diff-base annotation of an object,
 * and the progress of one handler stored and then purged via the default storages.
 */
import type { BenchFigure, BenchSection } from "./types.ts";
import { OperatorSettings } from "../../src/settings/operator_settings.ts";
import { loadEssences } from "../../src/settings/essences.ts";
import { State } from "../../src/handling/handler_states.ts";
import { Patch } from "../../src/structs/patches.ts";
import type { RawBody } from "../../src/structs/bodies.ts";

function sampleBody(i: number): RawBody {
  return {
    apiVersion: "kopf.dev/v1",
    kind: "KopfExample",
    metadata: {
      name: `kex-${i}`,
      namespace: "default",
      uid: `00000000-0000-0000-0000-${String(i).padStart(12, "0")}`,
      resourceVersion: String(1000 + i),
      labels: { app: "bench", index: String(i) },
      annotations: { "kopf.zalando.org/create_fn": '{"retries":0}', note: "bench ü" },
    },
    spec: { duration: "1m", field: "value", items: ["a", "b", "c"], nested: { x: i, y: 0.5 } },
    status: { phase: "Pending" },
  };
}

async function cycle(settings: OperatorSettings, body: RawBody): Promise<void> {
  const { persistence } = settings;
  const storage = persistence.progressStorage;
  const handlers = [{ id: "create_fn" }];
  const essences = await loadEssences(persistence, body);
  let state = await State.fromStorage({ body, storage, handlers });
  state = state.withPurpose("create").withHandlers(handlers)
    .withOutcomes({ create_fn: { final: true, result: { ok: true } } });
  const patch = new Patch();
  await state.store({ body, patch, storage });
  await state.purge({ body, patch, storage, handlers });
  await persistence.diffbaseStorage.store({ body, patch, essence: essences.new });
  patch.toMergePatch();
}

/** The persistence section of the benchmarks. */
export const section: BenchSection = {
  title: "Persistence (essence, diff-base, progress records)",
  async run(): Promise<BenchFigure[]> {
    const settings = new OperatorSettings();
    const count = 10_000;
    const bodies = Array.from({ length: count }, (_, i) => sampleBody(i));
    for (let i = 0; i < 500; i++) await cycle(settings, bodies[i]); // warm-up
    const start = performance.now();
    for (const body of bodies) await cycle(settings, body);
    const seconds = (performance.now() - start) / 1000;
    const rate = Math.round(count / seconds);
    return [{
      name: "one handling cycle's persistence work (fetch, store, purge, diff-base)",
      value: `${rate.toLocaleString("en-US")} objects/s (${count} objects)`,
      target: "≥ 5,000 objects/s (a small share of the 500 objects/s operator target)",
      ok: rate >= 5000,
    }];
  },
};
