/**
 * Answering AdmissionReview requests with the validating and mutating handlers
 * (selection by webhook id, filters, kwargs, warnings, errors and their priority, JSON
 * patches, memos).
 */
import { AdmissionError, PermanentError, TemporaryError } from "../../src/structs/errors.ts";
import { Resource } from "../../src/structs/resources.ts";
import { OperatorRegistry } from "../../src/intents/registry.ts";
import { on } from "../../src/intents/registration.ts";
import { serveAdmissionReview } from "../../src/engines/admission_answers.ts";
import { AdmissionRequestError } from "../../src/engines/webhook_servers.ts";
import { assert, assertEquals, assertRejects } from "../assert.ts";

const KEX = new Resource({
  group: "kopf.dev",
  version: "v1",
  plural: "kopfexamples",
  kind: "KopfExample",
  singular: "kopfexample",
  shortcuts: ["kex"],
});

function review(request: Record<string, unknown> = {}) {
  return {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: "uid-1",
      kind: { group: "kopf.dev", version: "v1", kind: "KopfExample" },
      resource: { group: "kopf.dev", version: "v1", resource: "kopfexamples" },
      name: "kex1",
      namespace: "default",
      operation: "CREATE",
      userInfo: { username: "alice", groups: ["devs"] },
      object: {
        apiVersion: "kopf.dev/v1",
        kind: "KopfExample",
        metadata: { name: "kex1", namespace: "default", labels: { app: "x" } },
        spec: { field: "value" },
      },
      oldObject: null,
      dryRun: false,
      ...request,
    },
  };
}

function registry(): OperatorRegistry {
  return new OperatorRegistry({ onWarning: () => {} });
}

function decode(patch: string | undefined): unknown {
  return patch === undefined ? undefined : JSON.parse(atob(patch));
}

Deno.test("a validating handler gets the admission kwargs; warnings are returned; allowed", async () => {
  const r = registry();
  // deno-lint-ignore no-explicit-any
  let seen: any;
  on.validate("kex", { registry: r, param: 42 }, function check(kwargs) {
    seen = { ...kwargs };
    kwargs.warnings.push("looked at it");
  });
  const answer = await serveAdmissionReview(review({ dryRun: true }), {
    registry: r,
    resolve: () => KEX,
    webhook: "check",
    headers: { authorization: "Bearer x" },
    sslpeer: { commonName: "apiserver" },
  });
  assertEquals(answer.apiVersion, "admission.k8s.io/v1");
  assertEquals(answer.kind, "AdmissionReview");
  assertEquals(answer.response, { uid: "uid-1", allowed: true, warnings: ["looked at it"] });
  assertEquals(seen.operation, "CREATE");
  assertEquals(seen.dryrun, true);
  assertEquals(seen.subresource, null);
  assertEquals(seen.userinfo.username, "alice");
  assertEquals(seen.headers.authorization, "Bearer x");
  assertEquals(seen.sslpeer.commonName, "apiserver");
  assertEquals(seen.param, 42);
  assertEquals(seen.name, "kex1");
  assertEquals(seen.namespace, "default");
  assertEquals(seen.spec.field, "value");
  assertEquals(seen.old, null);
  assertEquals(seen.new.spec.field, "value");
  assertEquals(seen.resource, KEX);
});

Deno.test("the webhook id picks one handler; without it all handlers of the resource run", async () => {
  const r = registry();
  const calls: string[] = [];
  on.validate("kex", { registry: r }, function one() {
    calls.push("one");
  });
  on.validate("kex", { registry: r }, function two() {
    calls.push("two");
  });
  on.validate("pods", { registry: r }, function other() {
    calls.push("other");
  });
  await serveAdmissionReview(review(), { registry: r, resolve: () => KEX, webhook: "two" });
  assertEquals(calls, ["two"]);
  calls.length = 0;
  await serveAdmissionReview(review(), { registry: r, resolve: () => KEX });
  assertEquals(calls, ["one", "two"]);
  calls.length = 0;
  await serveAdmissionReview(review(), { registry: r, resolve: () => KEX, webhook: "nothing" });
  assertEquals(calls, []);
});

Deno.test("without a resolver, the resource is built from the request and matched by plural", async () => {
  const r = registry();
  const calls: string[] = [];
  on.validate("kopf.dev", "kopfexamples", { registry: r }, function check({ resource }) {
    calls.push(resource.key);
  });
  await serveAdmissionReview(review(), { registry: r });
  assertEquals(calls, ["kopf.dev/v1/kopfexamples"]);
});

Deno.test("an AdmissionError denies with its message and code; others deny with 500", async () => {
  const r = registry();
  on.validate("kex", { registry: r }, function strict() {
    throw new AdmissionError("No way.", { code: 499 });
  });
  on.validate("kex", { registry: r }, function broken() {
    throw new Error("boom");
  });
  const denied = await serveAdmissionReview(review(), {
    registry: r,
    resolve: () => KEX,
    webhook: "strict",
  });
  assertEquals(denied.response, {
    uid: "uid-1",
    allowed: false,
    status: { message: "No way.", code: 499 },
  });
  const failed = await serveAdmissionReview(review(), {
    registry: r,
    resolve: () => KEX,
    webhook: "broken",
  });
  assertEquals(failed.response.allowed, false);
  assertEquals(failed.response.status, { message: "boom", code: 500 });
});

Deno.test("with several errors, admission errors win, then permanent, then temporary ones", async () => {
  const r = registry();
  on.validate("kex", { registry: r }, function a() {
    throw new Error("arbitrary");
  });
  on.validate("kex", { registry: r }, function b() {
    throw new TemporaryError("temporary");
  });
  on.validate("kex", { registry: r }, function c() {
    throw new PermanentError("permanent");
  });
  const first = await serveAdmissionReview(review(), { registry: r, resolve: () => KEX });
  assertEquals(first.response.status, { message: "permanent", code: 500 });
  on.validate("kex", { registry: r }, function d() {
    throw new AdmissionError("admission", { code: 403 });
  });
  const second = await serveAdmissionReview(review(), { registry: r, resolve: () => KEX });
  assertEquals(second.response.status, { message: "admission", code: 403 });
});

Deno.test("a mutating handler's patch becomes a base64 JSON Patch against the object", async () => {
  const r = registry();
  on.mutate("kex", { registry: r }, function defaults({ spec, patch }) {
    if (spec.numbers === undefined) patch.spec.numbers = [1, 2, 3];
    patch.metadata.labels.mutated = "yes";
    patch.spec.field = null;
  });
  const answer = await serveAdmissionReview(review(), {
    registry: r,
    resolve: () => KEX,
    webhook: "defaults",
  });
  assertEquals(answer.response.allowed, true);
  assertEquals(answer.response.patchType, "JSONPatch");
  const ops = decode(answer.response.patch) as { op: string; path: string; value?: unknown }[];
  const byPath = Object.fromEntries(ops.map((o) => [o.path, o]));
  assertEquals(byPath["/spec/numbers"], { op: "add", path: "/spec/numbers", value: [1, 2, 3] });
  assertEquals(byPath["/spec/field"], { op: "remove", path: "/spec/field" });
  assertEquals(byPath["/metadata/labels/mutated"], {
    op: "add",
    path: "/metadata/labels/mutated",
    value: "yes",
  });
  assertEquals(ops.length, 3);
});

Deno.test("a mutating handler that changes nothing returns no patch; a denial returns none either", async () => {
  const r = registry();
  on.mutate("kex", { registry: r }, function idle() {});
  on.mutate("kex", { registry: r }, function refusing({ patch }) {
    patch.spec.x = 1;
    throw new AdmissionError("no");
  });
  const idle = await serveAdmissionReview(review(), {
    registry: r,
    resolve: () => KEX,
    webhook: "idle",
  });
  assertEquals(idle.response, { uid: "uid-1", allowed: true });
  const refusing = await serveAdmissionReview(review(), {
    registry: r,
    resolve: () => KEX,
    webhook: "refusing",
  });
  assertEquals(refusing.response.allowed, false);
  assertEquals(refusing.response.patch, undefined);
});

Deno.test("operations, subresources and filters select the handlers", async () => {
  const r = registry();
  const calls: string[] = [];
  const record = (id: string) => () => void calls.push(id);
  on.validate("kex", { registry: r, id: "creates", operation: "CREATE" }, record("creates"));
  on.validate("kex", { registry: r, id: "updates", operation: ["UPDATE"] }, record("updates"));
  on.validate("kex", { registry: r, id: "status", subresource: "status" }, record("status"));
  on.validate("kex", { registry: r, id: "any", subresource: "*" }, record("any"));
  on.validate("kex", { registry: r, id: "labelled", labels: { app: "x" } }, record("labelled"));
  on.validate("kex", { registry: r, id: "unlabelled", labels: { app: "y" } }, record("unlabelled"));
  on.validate(
    "kex",
    { registry: r, id: "when", when: ({ spec }) => spec.field === "value" },
    record("when"),
  );
  on.validate(
    "kex",
    { registry: r, id: "field", field: "spec.field", value: "other" },
    record("x"),
  );
  await serveAdmissionReview(review(), { registry: r, resolve: () => KEX });
  assertEquals(calls, ["creates", "any", "labelled", "when"]);
  calls.length = 0;
  const old = review().request.object;
  await serveAdmissionReview(
    review({ operation: "UPDATE", subResource: "status", oldObject: old }),
    {
      registry: r,
      resolve: () => KEX,
    },
  );
  assertEquals(calls, ["status", "any"]);
});

Deno.test("a DELETE review gives the old object as the body, and new as null", async () => {
  const r = registry();
  // deno-lint-ignore no-explicit-any
  let seen: any;
  on.validate("kex", { registry: r }, function check(kwargs) {
    seen = { name: kwargs.name, old: kwargs.old, new: kwargs.new, op: kwargs.operation };
  });
  const old = review().request.object;
  const answer = await serveAdmissionReview(
    review({ operation: "DELETE", object: null, oldObject: old }),
    { registry: r, resolve: () => KEX },
  );
  assert(answer.response.allowed);
  assertEquals(seen.name, "kex1");
  assertEquals(seen.new, null);
  assertEquals(seen.old.spec.field, "value");
  assertEquals(seen.op, "DELETE");
});

Deno.test("a request that is not an AdmissionReview is rejected as such", async () => {
  const r = registry();
  await assertRejects(() => serveAdmissionReview({}, { registry: r }), AdmissionRequestError);
  await assertRejects(
    () => serveAdmissionReview({ request: { uid: "u" } }, { registry: r }),
    AdmissionRequestError,
  );
});

Deno.test("updates and deletions get the known object's memo; creations a discarded copy", async () => {
  const r = registry();
  const memos: unknown[] = [];
  on.validate("kex", { registry: r }, function check({ memo }) {
    memos.push(memo);
  });
  const known = { mine: true };
  const options = {
    registry: r,
    resolve: () => KEX,
    memo: { operator: true },
    memoOf: () => known,
  };
  const old = review().request.object;
  await serveAdmissionReview(review({ operation: "UPDATE", oldObject: old }), options);
  await serveAdmissionReview(review(), options);
  assert(memos[0] === known);
  assertEquals(memos[1], { operator: true });
  assert(memos[1] !== options.memo);
});
