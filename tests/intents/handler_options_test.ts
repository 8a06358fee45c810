/**
 * Every registration error, one by one, with its message: it names the function, the
 * handler and the option, and says what to do.
 */
import { kopf } from "../../mod.ts";
import { RegistrationError } from "../../src/intents/handler_options.ts";
import { assertEquals, assertThrows } from "../assert.ts";
import { matcherOf } from "../../src/intents/registry.ts";

const registry = new kopf.OperatorRegistry({ onWarning: () => {} });
const fn = function handlerFn() {};

function fails(call: () => unknown, message: string): void {
  const error = assertThrows(call, RegistrationError);
  assertEquals(error.message, message);
}

Deno.test("an unknown option lists the valid ones", () => {
  fails(
    () => kopf.on.create("kopfexamples", { registry, labelz: {} } as never, fn),
    'kopf.on.create("kopfexamples") handler handlerFn: unknown option "labelz"; valid options ' +
      "are: id, param, registry, rbac, group, version, kind, plural, singular, shortcut, category, " +
      "errors, timeout, retries, backoff, labels, annotations, field, value, when, metadataOnly.",
  );
});

Deno.test("the rbac option: a list of RESOURCE:VERBS, kept on the handler", () => {
  const own = new kopf.OperatorRegistry();
  kopf.on.create("kopfexamples", {
    registry: own,
    rbac: ["pods:create,delete", "deployments.apps:get", "pods/log:get"],
  }, fn);
  kopf.on.startup({ registry: own, rbac: ["configmaps:get"] }, function starter() {});
  assertEquals(matcherOf(own).handlers.map((h) => h.rbac), [
    ["pods:create,delete", "deployments.apps:get", "pods/log:get"],
    ["configmaps:get"],
  ]);
  fails(
    () => kopf.on.create("kex", { registry, rbac: "pods:get" } as never, fn),
    'kopf.on.create("kex") handler handlerFn: option "rbac" must be a list like ' +
      '["pods:create,delete"], got "pods:get".',
  );
  fails(
    () => kopf.on.create("kex", { registry, rbac: ["pods"] }, fn),
    'kopf.on.create("kex") handler handlerFn: option "rbac": "pods" is not RESOURCE:VERBS; use ' +
      "e.g. pods:create,delete or deployments.apps:get,patch.",
  );
});

Deno.test("an option of other handlers says which ones accept it", () => {
  fails(
    () => kopf.on.create("kopfexamples", { registry, interval: 5 } as never, fn),
    'kopf.on.create("kopfexamples") handler handlerFn: option "interval" is not accepted here, ' +
      "only by kopf.timer.",
  );
  fails(
    () => kopf.on.create("kex", { registry, optional: true } as never, fn),
    'kopf.on.create("kex") handler handlerFn: option "optional" is not accepted here, only by ' +
      "kopf.on.delete.",
  );
  fails(
    () => kopf.on.create("kex", { registry, old: "x", field: "spec.x" } as never, fn),
    'kopf.on.create("kex") handler handlerFn: option "old" is not accepted here, only by ' +
      "kopf.on.update, kopf.on.field, kopf.subhandler, kopf.register.",
  );
});

Deno.test("admission-only options are refused elsewhere", () => {
  fails(
    () => kopf.on.update("kex", { registry, sideEffects: true } as never, fn),
    'kopf.on.update("kex") handler handlerFn: option "sideEffects" is only for admission ' +
      "handlers (kopf.on.validate/mutate).",
  );
});

Deno.test("retry options are refused on admission and event handlers", () => {
  fails(
    () => kopf.on.validate("kex", { registry, retries: 3 } as never, fn),
    'kopf.on.validate("kex") handler handlerFn: option "retries" is not accepted: admission ' +
      "handlers are never retried (raise kopf.AdmissionError to reject a request with a " +
      "message and code).",
  );
  fails(
    () => kopf.on.event("kex", { registry, backoff: 3 } as never, fn),
    'kopf.on.event("kex") handler handlerFn: option "backoff" is not accepted: event handlers ' +
      "are never retried (use kopf.on.create/update/delete/resume for retried handlers).",
  );
});

Deno.test("a timer needs an interval or idle time", () => {
  fails(
    () => kopf.timer("kex", { registry } as never, fn),
    'kopf.timer("kex") handler handlerFn: a timer needs option "interval" or "idle" (or both), ' +
      "in seconds.",
  );
  fails(
    () => kopf.timer("kex", { registry, interval: 0 }, fn),
    'kopf.timer("kex") handler handlerFn: option "interval" must be a number of seconds > 0, ' +
      "got 0.",
  );
});

Deno.test("a field handler needs a field", () => {
  fails(
    () => kopf.on.field("kex", { registry } as never, fn),
    'kopf.on.field("kex") handler handlerFn: option "field" is required for kopf.on.field ' +
      '(e.g. { field: "spec.size" }).',
  );
});

Deno.test("value cannot be combined with old/new, and they all need a field", () => {
  fails(
    () => kopf.on.update("kex", { registry, field: "spec.f", value: "a", new: "b" } as never, fn),
    'kopf.on.update("kex") handler handlerFn: options "value" and "old"/"new" cannot be ' +
      'combined; use either "value" or "old"/"new".',
  );
  fails(
    () => kopf.on.create("kex", { registry, value: "a" } as never, fn),
    'kopf.on.create("kex") handler handlerFn: option "value" filters a field\'s value; give ' +
      'the "field" option too.',
  );
  fails(
    () => kopf.on.update("kex", { registry, new: "a" } as never, fn),
    'kopf.on.update("kex") handler handlerFn: option "new" filters a field\'s value; give the ' +
      '"field" option too.',
  );
});

Deno.test("wrongly typed option values are named with what they should be", () => {
  const cases: [() => unknown, string][] = [
    [
      () => kopf.on.create("kex", { registry, errors: "sometimes" as never }, fn),
      'option "errors" must be one of "temporary", "permanent", "ignored" (kopf.ErrorsMode), got "sometimes"',
    ],
    [
      () => kopf.on.create("kex", { registry, retries: 1.5 }, fn),
      'option "retries" must be a whole number ≥ 0, got 1.5',
    ],
    [
      () => kopf.on.create("kex", { registry, timeout: -1 }, fn),
      'option "timeout" must be a number of seconds ≥ 0, got -1',
    ],
    [
      () => kopf.on.create("kex", { registry, labels: { a: 1 as never } }, fn),
      'option "labels" key "a" must be a string, kopf.PRESENT, kopf.ABSENT or a callback, got 1',
    ],
    [
      () => kopf.on.create("kex", { registry, annotations: "x" as never }, fn),
      'option "annotations" must be an object of key → value, kopf.PRESENT, kopf.ABSENT or a callback',
    ],
    [
      () => kopf.on.create("kex", { registry, when: true as never }, fn),
      'option "when" must be a function of the handler\'s arguments, got true',
    ],
    [
      () => kopf.on.create("kex", { registry, field: "spec..x" }, fn),
      'option "field": Invalid field path "spec..x": use a dotted string like "spec.field" or an array of non-empty keys.',
    ],
    [
      () => kopf.on.create("kex", { registry, field: "spec.x", value: Symbol("x") as never }, fn),
      'option "value" accepts only kopf.PRESENT or kopf.ABSENT as markers, got Symbol(x)',
    ],
    [
      () => kopf.on.delete("kex", { registry, optional: "yes" as never }, fn),
      'option "optional" must be true or false, got "yes"',
    ],
    [
      () => kopf.on.mutate("kex", { registry, operation: "PATCH" as never }, fn),
      'option "operation" must be one of "CREATE", "UPDATE", "DELETE", "CONNECT" or "*" (or an array of them), got "PATCH"',
    ],
    [
      () => kopf.on.create("kex", { registry, id: "" }, fn),
      'option "id" must be a non-empty string, got ""',
    ],
    [
      () => kopf.on.create("kex", { registry: {} as never }, fn),
      'option "registry" must be a kopf.OperatorRegistry, got {}',
    ],
    [
      () => kopf.daemon("kex", { registry, cancellationTimeout: "1s" as never }, fn),
      'option "cancellationTimeout" must be a number of seconds ≥ 0, got "1s"',
    ],
  ];
  for (const [call, problem] of cases) {
    const error = assertThrows(call, RegistrationError);
    const where = error.message.slice(0, error.message.indexOf(": ") + 2);
    assertEquals(error.message, `${where}${problem.replace(/\.$/, "")}.`);
  }
});

Deno.test("the function must come last, and selectors must make sense", () => {
  fails(
    () => (kopf.on.create as (...a: unknown[]) => unknown)("kex", { registry }),
    'kopf.on.create("kex"): the handler function must be the last argument, got {"registry":{}}.',
  );
  fails(
    () => (kopf.on.create as (...a: unknown[]) => unknown)(),
    "kopf.on.create(): the handler function must be the last argument, got nothing.",
  );
  fails(
    () => kopf.on.create({ registry }, fn),
    "kopf.on.create() handler handlerFn: No resource is specified: give a name (e.g. " +
      '"kopfexamples"), kopf.EVERYTHING, a predicate, or one of the options kind, plural, ' +
      "singular, shortcut, category.",
  );
  fails(
    () => kopf.on.create("pods", { registry, kind: "Pod" }, fn),
    'kopf.on.create("pods") handler handlerFn: Ambiguous resource specification with several ' +
      "names (kind=Pod, name=pods); give only one.",
  );
  fails(
    () => (kopf.on.startup as (...a: unknown[]) => unknown)("pods", { registry }, fn),
    'kopf.on.startup("pods") handler handlerFn: activity handlers serve no resources; remove ' +
      'the selector arguments ("pods").',
  );
});

Deno.test("nothing is registered when registration fails", () => {
  const before = matcherOf(registry).handlers.length;
  assertThrows(() => kopf.timer("kex", { registry } as never, fn), RegistrationError);
  assertEquals(matcherOf(registry).handlers.length, before);
});

Deno.test("selector options on handlers that serve no resources are refused", () => {
  fails(
    () => kopf.on.startup({ registry, kind: "Pod" } as never, fn),
    'kopf.on.startup() handler handlerFn: option "kind" selects resources, but kopf.on.startup ' +
      "handlers serve none; remove it.",
  );
});
