/**
 * The indexing engine on its own: contributions follow each object's states and leave
 * with the object, indexing functions see the indices and their `param`, temporary
 * failures exclude the object until due and then count retries, and the indices are
 * populated only once every object of the initial listings has been indexed.
 */
import { assert, assertEquals } from "../assert.ts";
import type { RawBody } from "../../src/structs/bodies.ts";
import { PermanentError, TemporaryError } from "../../src/structs/errors.ts";
import type { Index } from "../../src/structs/indices.ts";
import { Resource } from "../../src/structs/resources.ts";
import { OperatorRegistry } from "../../src/intents/registry.ts";
import { index } from "../../src/intents/registration.ts";
import { createObjectScope } from "../../src/handling/object_loggers.ts";
import { OperatorIndexers } from "../../src/engines/indexing.ts";
import { wallClockAt } from "../clocks.ts";

const KEX = new Resource({ group: "kopf.dev", version: "v1", plural: "kopfexamples" });
const PODS = new Resource({ group: "", version: "v1", plural: "pods" });

function object(uid: string, labels: Record<string, string> = {}): RawBody {
  return { metadata: { name: uid, namespace: "default", uid, labels } };
}

function stateOf(body: RawBody, gone = false, resource: Resource = KEX) {
  return { resource, body, gone, memory: { memo: {} }, ref: createObjectScope(body).ref };
}

function contents(idx: Index | undefined): [unknown, unknown[]][] {
  return [...idx ?? []].map(([k, store]) => [k, [...store]]);
}

Deno.test("each state replaces the object's values; a gone object leaves; others are untouched", async () => {
  const registry = new OperatorRegistry({ onWarning: () => {} });
  index(KEX.plural, { registry }, function byApp({ labels, name }) {
    return labels.app === undefined ? undefined : new Map([[labels.app, name]]);
  });
  const indexers = new OperatorIndexers({ registry });
  const byApp = indexers.indices.byApp;
  assertEquals(Object.keys(indexers.indices), ["byApp"]);
  assert(indexers.serves(KEX) && !indexers.serves(PODS));
  await indexers.process(stateOf(object("a", { app: "web" })));
  await indexers.process(stateOf(object("b", { app: "web" })));
  assertEquals(contents(byApp), [["web", ["a", "b"]]]);
  await indexers.process(stateOf(object("a", { app: "db" })));
  assertEquals(contents(byApp), [["web", ["b"]], ["db", ["a"]]]);
  await indexers.process(stateOf(object("a"))); // undefined: the previous values stay
  assertEquals(contents(byApp), [["web", ["b"]], ["db", ["a"]]]);
  await indexers.process(stateOf(object("b"), true));
  assertEquals(contents(byApp), [["db", ["a"]]]);
});

Deno.test("indexing functions and their filters see the indices and their param", async () => {
  const registry = new OperatorRegistry({ onWarning: () => {} });
  const seen: unknown[] = [];
  index(KEX.plural, {
    registry,
    param: "p",
    when: (kw: { names?: Index }) => kw.names !== undefined,
  }, function names({ name, param, names }: { name?: string; param: unknown; names: Index }) {
    seen.push(param, names.size);
    return name;
  });
  const indexers = new OperatorIndexers({ registry });
  await indexers.process(stateOf(object("a")));
  await indexers.process(stateOf(object("b")));
  assertEquals(seen, ["p", 0, "p", 1]);
});

Deno.test("a temporary failure excludes the object until due, then retries with the count", async () => {
  const registry = new OperatorRegistry({ onWarning: () => {} });
  const retries: number[] = [];
  let now = 1_000_000;
  index(KEX.plural, { registry }, function flaky({ retry, name }) {
    retries.push(retry);
    if (retry < 2) throw new TemporaryError("later", { delay: 10 });
    return name;
  });
  const indexers = new OperatorIndexers({ registry, clock: wallClockAt(() => now) });
  assertEquals(await indexers.process(stateOf(object("a"))), { delay: 10 });
  assertEquals(await indexers.process(stateOf(object("a"))), { delay: 10 }, "not invoked yet");
  assertEquals(retries, [0]);
  now += 10_000;
  assertEquals(await indexers.process(stateOf(object("a"))), { delay: 10 });
  now += 10_000;
  assertEquals(await indexers.process(stateOf(object("a"))), {});
  assertEquals(retries, [0, 1, 2]);
  assertEquals(contents(indexers.indices.flaky), [[null, ["a"]]]);
});

Deno.test("the indices are populated once the listings are fed and their objects indexed", async () => {
  const registry = new OperatorRegistry({ onWarning: () => {} });
  index(KEX.plural, { registry }, function names({ name }) {
    return name;
  });
  const indexers = new OperatorIndexers({ registry });
  const populating = indexers.populating;
  assert(populating !== undefined);
  indexers.expect(KEX, { type: null, object: object("a") });
  indexers.expect(KEX, { type: null, object: object("b") });
  indexers.expect(PODS, { type: null, object: object("p") }); // not indexed: not awaited
  indexers.expect(KEX, { type: "ADDED", object: object("c") }); // not from a listing
  await indexers.process(stateOf(object("a")));
  indexers.listingsFed();
  assert(indexers.populating !== undefined, "b is not indexed yet");
  await indexers.process(stateOf(object("b"), true)); // gone before being indexed: settled too
  assertEquals(indexers.populating, undefined);
  await populating;
});

Deno.test("halting releases the waiters but the indices do not count as populated", async () => {
  const registry = new OperatorRegistry({ onWarning: () => {} });
  index(KEX.plural, { registry }, function names({ name }) {
    return name;
  });
  const indexers = new OperatorIndexers({ registry });
  const populating = indexers.populating!;
  indexers.halt();
  await populating;
  assert(indexers.populating !== undefined);
});

Deno.test("an object excluded after a failure stays excluded when it stops and starts matching again", async () => {
  const registry = new OperatorRegistry({ onWarning: () => {} });
  const runs: string[] = [];
  let now = 1_000_000;
  index(KEX.plural, { registry, labels: { on: "yes" } }, function strict({ name }) {
    runs.push(`strict ${name}`);
    throw new PermanentError("never again");
  });
  index(KEX.plural, { registry, labels: { on: "yes" } }, function flaky({ name, retry }) {
    runs.push(`flaky ${name} ${retry}`);
    throw new TemporaryError("later", { delay: 10 });
  });
  const indexers = new OperatorIndexers({ registry, clock: wallClockAt(() => now) });
  assertEquals(await indexers.process(stateOf(object("a", { on: "yes" }))), { delay: 10 });
  assertEquals(await indexers.process(stateOf(object("a", { on: "no" }))), {});
  // A flip of the labels neither lifts the permanent exclusion nor shortens the delay.
  now += 1_000;
  assertEquals(await indexers.process(stateOf(object("a", { on: "yes" }))), { delay: 9 });
  assertEquals(runs, ["strict a", "flaky a 0"]);
  // Once due, the temporary failure is retried with its count; the permanent one never.
  now += 9_000;
  assertEquals(await indexers.process(stateOf(object("a", { on: "yes" }))), { delay: 10 });
  assertEquals(runs, ["strict a", "flaky a 0", "flaky a 1"]);
  assertEquals([contents(indexers.indices.strict), contents(indexers.indices.flaky)], [[], []]);
  // A gone object leaves nothing behind: a new one of the same name starts afresh.
  await indexers.process(stateOf(object("a"), true));
  assertEquals(await indexers.process(stateOf(object("a", { on: "yes" }))), { delay: 10 });
  assertEquals(runs.slice(3), ["strict a", "flaky a 0"]);
});
