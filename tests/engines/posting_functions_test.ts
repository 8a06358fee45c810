import { assertEquals, assertThrows } from "../assert.ts";
import { event, exception, info, warn } from "../../src/engines/posting.ts";
import {
  registerFallbackPostingTarget,
  runWithPostingTarget,
} from "../../src/handling/posting_queue.ts";
import type { K8sEventRequest } from "../../src/structs/k8s_events.ts";
import { UsageError } from "../../src/structs/errors.ts";
import { drain, postingTarget } from "../handling/posting_targets.ts";
import type { PostingSettings } from "../../src/settings/output_settings.ts";

const OBJ = {
  apiVersion: "kopf.dev/v1",
  kind: "KopfExample",
  metadata: { name: "x", namespace: "ns", uid: "u" },
};
const REF = {
  apiVersion: "kopf.dev/v1",
  kind: "KopfExample",
  name: "x",
  uid: "u",
  namespace: "ns",
};

function queued(posting: Partial<PostingSettings>, fn: () => void): K8sEventRequest[] {
  const target = postingTarget(posting);
  runWithPostingTarget(target, fn);
  return drain(target.queue);
}

Deno.test("kopf.event() queues an event of any type for each given object", () => {
  const other = { apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "ns" } };
  const items = queued(
    {},
    () => event([OBJ, other], { type: "SomeType", reason: "SomeReason", message: "m" }),
  );
  assertEquals(items, [
    { ref: REF, type: "SomeType", reason: "SomeReason", message: "m" },
    {
      ref: { apiVersion: "v1", kind: "Pod", name: "p", namespace: "ns" },
      type: "SomeType",
      reason: "SomeReason",
      message: "m",
    },
  ]);
});

Deno.test("kopf.info() and kopf.warn() post Normal and Warning events", () => {
  const items = queued({}, () => {
    info(OBJ, { reason: "Informed", message: "hello" });
    warn(OBJ, { reason: "Warned" });
  });
  assertEquals(items, [
    { ref: REF, type: "Normal", reason: "Informed", message: "hello" },
    { ref: REF, type: "Warning", reason: "Warned", message: "" },
  ]);
});

Deno.test("the posting level filters info, warn and exception, but not event", () => {
  const items = queued({ level: "error" }, () => {
    info(OBJ, { reason: "I" });
    warn(OBJ, { reason: "W" });
    exception(OBJ, { reason: "E", error: new Error("boom") });
    event(OBJ, { type: "Normal", reason: "Explicit" });
  });
  assertEquals(items.map((e) => e.reason), ["E", "Explicit"]);
});

Deno.test("disabled posting skips all of them", () => {
  const items = queued({ enabled: false }, () => {
    event(OBJ, { type: "Normal", reason: "R" });
    exception(OBJ, { error: new Error("boom") });
  });
  assertEquals(items, []);
});

Deno.test("kopf.exception() takes the reason from the error and appends its message", () => {
  const items = queued({}, () => {
    exception(OBJ, { message: "Some exception:", error: new RangeError("Exception text.") });
    exception(OBJ, { reason: "Custom", error: new Error("only the error") });
    exception(OBJ, { reason: "NoError", message: "just text" });
    exception(OBJ, { message: "thrown:", error: "a string" });
  });
  assertEquals(items.map(({ type, reason, message }) => ({ type, reason, message })), [
    { type: "Error", reason: "RangeError", message: "Some exception: Exception text." },
    { type: "Error", reason: "Custom", message: "only the error" },
    { type: "Error", reason: "NoError", message: "just text" },
    { type: "Error", reason: "string", message: "thrown: a string" },
  ]);
});

Deno.test("events about Event objects are silently skipped", () => {
  const ev = { apiVersion: "v1", kind: "Event", metadata: { name: "e", namespace: "ns" } };
  assertEquals(queued({}, () => info(ev, { reason: "R" })), []);
});

Deno.test("outside of an operator, the event functions say what is missing", () => {
  assertThrows(
    () => info(OBJ, { reason: "R" }),
    UsageError,
    "kopf.info() needs a running operator",
  );
});

Deno.test("a registered fallback target receives events from outside any operator's flow", () => {
  const target = postingTarget();
  const unregister = registerFallbackPostingTarget(target);
  try {
    warn(OBJ, { reason: "Fallback" });
  } finally {
    unregister();
  }
  assertEquals(target.queue.shift()?.reason, "Fallback");
  assertThrows(() => warn(OBJ, { reason: "R" }), UsageError, "needs a running operator");
});

Deno.test("values that are not objects are rejected with a hint", () => {
  queued({}, () => {
    assertThrows(
      () => info("x" as unknown as object, { reason: "R" }),
      TypeError,
      "kopf.info() expects Kubernetes objects",
    );
    assertThrows(
      () => info([OBJ, 5 as unknown as object], { reason: "R" }),
      TypeError,
      "got number",
    );
  });
});
