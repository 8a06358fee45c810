/**
 * The events of the operator's own writes, over HTTP against the fake cluster: a write that
 * finished an object's handling brings back a state that needs nothing, which the operator
 * does not process (its processing cycles show it); a change by anyone else is processed as
 * ever, and so is a write of a handler that changes the object's essence (an update).
 */
import { assert, assertEquals } from "../assert.ts";
import { on } from "../../src/intents/registration.ts";
import {
  Calls,
  clusterRegistry,
  freePort,
  handled,
  kex,
  startCluster,
  startOperator,
} from "./harness.ts";
import { sampleOf } from "../promtool.ts";

/** The value of one sample, or 0 when the series does not exist. */
function sample(text: string, series: string): number {
  return sampleOf(text, series) ?? 0;
}

const RESOURCE = 'resource="kopfexamples.kopf.dev"';

/**
 * The processing cycles, once the operator has received the event of each of its writes
 * (the watch tells of every write, in order): read from its metrics (bounded at 10 s).
 */
async function cyclesAfterEchoes(metrics: string): Promise<number> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const text = await (await fetch(metrics)).text();
    const writes = sample(text, `kopf_patches_total{${RESOURCE}}`);
    const changed = sample(text, `kopf_events_received_total{${RESOURCE},type="MODIFIED"}`);
    if (changed >= writes) {
      // One more scrape: a state taken in is processed (or passed by) before it answers.
      return sample(
        await (await fetch(metrics)).text(),
        `kopf_processing_cycles_total{${RESOURCE}}`,
      );
    }
    if (Date.now() > deadline) throw new Error(`Echoes not received in time:\n${text}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

Deno.test("a write that finished the handling: its state is not processed; a change is", async () => {
  await using cluster = await startCluster({ status: true });
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  on.create("kopfexamples", { registry }, function create_fn() {
    calls.add("create");
    return { done: true };
  });
  on.update("kopfexamples", { registry }, function update_fn() {
    calls.add("update");
  });
  const metrics = `http://127.0.0.1:${freePort()}/metrics`;
  const op = await startOperator(registry, { metricsEndpoint: metrics });
  try {
    cluster.create(kex("kex1"));
    await cluster.waitFor("kopfexamples", "kex1", handled);
    // Kopf's storages: two writes (the annotations, the status); neither state is processed.
    assertEquals(await cyclesAfterEchoes(metrics), 1);
    cluster.patch("kopfexamples", "kex1", { spec: { field: "changed" } });
    await calls.until(1, (c) => c === "update");
    assertEquals(await cyclesAfterEchoes(metrics), 2);
    assertEquals(calls.list, ["create", "update"]);
  } finally {
    await op.stop();
  }
});

Deno.test("a handler's write that changes the essence is processed: the update handlers see it", async () => {
  await using cluster = await startCluster({ status: true });
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  on.create("kopfexamples", { registry }, function create_fn({ patch }) {
    calls.add("create");
    patch.metadata.labels.created = "yes";
  });
  on.update("kopfexamples", { registry }, function update_fn({ diff }) {
    calls.add(`update ${JSON.stringify(diff)}`);
  });
  const op = await startOperator(registry);
  try {
    cluster.create(kex("kex1"));
    await calls.until(2);
    assertEquals(calls.list, [
      "create",
      'update [["add",["metadata"],null,{"labels":{"created":"yes"}}]]',
    ]);
    assert(handled(cluster.get("kopfexamples", "kex1")));
  } finally {
    await op.stop();
  }
});

Deno.test("the events of the operator's own writes are passed by unparsed; another writer's is parsed", async () => {
  await using cluster = await startCluster({ status: true });
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  on.create("kopfexamples", { registry }, function create_fn() {
    return { done: true };
  });
  on.update("kopfexamples", { registry }, function update_fn({ body }) {
    calls.add(`update ${body.metadata.name}`);
  });
  // The watch events' texts parsed in this process (the operator's: the fake cluster makes
  // them, it does not parse them).
  const parsed: string[] = [];
  const parse = JSON.parse;
  JSON.parse = (text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
    if (typeof text === "string" && text.startsWith('{"type":"MODIFIED"')) parsed.push(text);
    return parse(text, reviver);
  };
  const metrics = `http://127.0.0.1:${freePort()}/metrics`;
  const op = await startOperator(registry, { metricsEndpoint: metrics });
  const names = ["kex1", "kex2", "kex3", "kex4", "kex5"];
  const parsedVersion = (version: string | undefined) =>
    parsed.some((text) => text.includes(`"resourceVersion":"${version}"`));
  const current = (name: string) => cluster.get("kopfexamples", name)?.metadata?.resourceVersion;
  try {
    for (const name of names) cluster.create(kex(name));
    for (const name of names) await cluster.waitFor("kopfexamples", name, handled);
    assertEquals(await cyclesAfterEchoes(metrics), names.length);
    // Counted as received all the same (cyclesAfterEchoes waited for them).
    const unparsed = names.filter((name) => !parsedVersion(current(name)));
    assertEquals(unparsed, names, "the last writes' events: none parsed");
    // Nor the first writes' (the annotations'), held for the last ones while they came.
    assertEquals(parsed, [], "none of the operator's writes' events parsed");
    const changed = cluster.patch("kopfexamples", "kex1", { spec: { field: "changed" } });
    await calls.until(1);
    const version = changed.metadata?.resourceVersion;
    assert(parsedVersion(version), "another writer's change is parsed and processed");
    assertEquals(calls.list, ["update kex1"]);
  } finally {
    JSON.parse = parse;
    await op.stop();
  }
});
