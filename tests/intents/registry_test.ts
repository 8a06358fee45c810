/**
 * The registry as users see it (construction, `{ registry }`, the warnings) and the
 * framework's access to what it holds (`matcherOf`, `addHandler`).
 */
import { kopf } from "../../mod.ts";
import { HandlerMatcher } from "../../src/intents/handler_matching.ts";
import { matcherOf, nextGeneratedId } from "../../src/intents/registry.ts";
import { UsageError } from "../../src/structs/errors.ts";
import { assert, assertEquals, assertThrows } from "../assert.ts";
import { kexV1 } from "../fixtures/discovered.ts";

Deno.test("a registry offers users nothing but its warnings: the matching is the framework's", () => {
  const members = Object.getOwnPropertyNames(kopf.OperatorRegistry.prototype).sort();
  assertEquals(members, ["constructor", "warnings"]);
  const registry = new kopf.OperatorRegistry({ onWarning: () => {} });
  assertEquals(Object.keys(registry), [], "no public fields either");
});

Deno.test("the matcher of a registry is one object that sees the handlers added later", () => {
  const registry = new kopf.OperatorRegistry();
  const matcher = matcherOf(registry);
  assert(matcher instanceof HandlerMatcher);
  assert(matcherOf(registry) === matcher, "taken once per component, it stays valid");
  assertEquals(matcher.handlersFor(kexV1).changing, []);
  kopf.on.create("kopfexamples", { registry }, function later() {});
  assertEquals(matcher.handlersFor(kexV1).changing.map((h) => h.id), ["later"]);
  assert(matcherOf(new kopf.OperatorRegistry()) !== matcher, "each registry its own");
});

Deno.test("the warnings are kept and given to onWarning; generated ids count per registry", () => {
  const seen: string[] = [];
  const registry = new kopf.OperatorRegistry({ onWarning: (m) => seen.push(m) });
  kopf.on.create("kopfexamples", { registry }, () => {});
  assertEquals(registry.warnings, seen);
  assertEquals(seen.length, 1);
  const other = new kopf.OperatorRegistry();
  assertEquals([nextGeneratedId(other, "x"), nextGeneratedId(other, "x")], ["x", "x-2"]);
});

Deno.test("the framework's access refuses what is not a registry, with what to pass instead", () => {
  assertThrows(
    () => matcherOf({ handlers: [] } as never),
    UsageError,
    "Expected a kopf.OperatorRegistry, got object; create one with new kopf.OperatorRegistry().",
  );
});
