import { assertEquals } from "../assert.ts";
import { OperatorSettings } from "../../src/settings/operator_settings.ts";
import { Resource } from "../../src/structs/resources.ts";
import {
  type BatchingSettings,
  type ConsistencySettings,
  Multiplexer,
  type QueuedEvent,
} from "../../src/reactor/queueing.ts";
import { ManualClock, settle } from "./manual_clock.ts";

Deno.test("the operator's settings fit the queueing as they are", async () => {
  const settings = new OperatorSettings();
  const batching: BatchingSettings = settings.batching;
  const persistence: ConsistencySettings = settings.persistence;
  settings.batching.batchWindow = 0;
  const clock = new ManualClock();
  const seen: QueuedEvent[] = [];
  const mux = new Multiplexer({
    batching,
    persistence,
    clock,
    processor: (event) => {
      seen.push(event);
      return Promise.resolve({ expectedResourceVersion: "2" });
    },
  });
  const resource = new Resource({ group: "", version: "v1", plural: "pods" });
  mux.push(resource, { type: "ADDED", object: { metadata: { uid: "u", resourceVersion: "1" } } });
  await settle();
  mux.push(resource, {
    type: "MODIFIED",
    object: { metadata: { uid: "u", resourceVersion: "1" } },
  });
  await clock.advance(settings.persistence.consistencyTimeout - 0.1);
  assertEquals(seen.length, 1, "the stale state waits for the default consistency timeout");
  await clock.advance(0.2);
  assertEquals(seen.length, 2);
  const stopping = mux.shutdown();
  await clock.advance(settings.batching.exitTimeout);
  await stopping;
});
