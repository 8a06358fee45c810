import { assertEquals, assertThrows } from "../assert.ts";
import {
  adjustNamespace,
  adopt,
  appendOwnerReference,
  buildObjectReference,
  buildOwnerReference,
  harmonizeNaming,
  label,
  removeOwnerReference,
} from "../../src/kits/hierarchies.ts";
import { createObjectLogger, runInObjectScope } from "../../src/handling/object_loggers.ts";
import type { JsonObject } from "../../src/structs/bodies.ts";
import { UsageError } from "../../src/structs/errors.ts";

const OWNER = {
  apiVersion: "kopf.dev/v1",
  kind: "KopfExample",
  metadata: {
    name: "kopf-example-1",
    namespace: "default",
    uid: "6b931859-5d50-4b5c-956b-ea2fed0d1058",
    labels: { somelabel: "somevalue" },
  },
};
const OWNER_REF = {
  controller: true,
  blockOwnerDeletion: true,
  apiVersion: "kopf.dev/v1",
  kind: "KopfExample",
  name: "kopf-example-1",
  uid: "6b931859-5d50-4b5c-956b-ea2fed0d1058",
};

/** Run `fn` as if inside a handler of OWNER. */
function inHandler<R>(fn: () => R): R {
  return runInObjectScope({ body: OWNER, logger: createObjectLogger(OWNER) }, fn);
}

function children(): JsonObject[] {
  return [{ kind: "Job" }, { kind: "Deployment" }];
}

Deno.test("owner references are built with controller and blockOwnerDeletion on by default", () => {
  assertEquals(JSON.stringify(buildOwnerReference(OWNER)), JSON.stringify(OWNER_REF));
  assertEquals(buildOwnerReference(OWNER, { controller: false, blockOwnerDeletion: null }), {
    controller: false,
    apiVersion: "kopf.dev/v1",
    kind: "KopfExample",
    name: "kopf-example-1",
    uid: "6b931859-5d50-4b5c-956b-ea2fed0d1058",
  });
});

Deno.test("an owner without uid cannot own anything, and the error says what is missing", () => {
  assertThrows(
    () => buildOwnerReference({ kind: "KopfExample", metadata: { name: "x" } }),
    TypeError,
    "it has no apiVersion, metadata.uid",
  );
});

Deno.test("object references carry the identity of an object", () => {
  assertEquals(buildObjectReference(OWNER), {
    apiVersion: "kopf.dev/v1",
    kind: "KopfExample",
    name: "kopf-example-1",
    uid: "6b931859-5d50-4b5c-956b-ea2fed0d1058",
    namespace: "default",
  });
});

Deno.test("appendOwnerReference() adds the owner once, to every object", () => {
  const objs = children();
  appendOwnerReference(objs, { owner: OWNER });
  appendOwnerReference(objs, { owner: OWNER, controller: false });
  assertEquals(objs, [
    { kind: "Job", metadata: { ownerReferences: [OWNER_REF] } },
    { kind: "Deployment", metadata: { ownerReferences: [OWNER_REF] } },
  ]);
});

Deno.test("appendOwnerReference() honours controller and blockOwnerDeletion", () => {
  const obj: JsonObject = {};
  appendOwnerReference(obj, { owner: OWNER, controller: false, blockOwnerDeletion: false });
  assertEquals(obj, {
    metadata: { ownerReferences: [{ ...OWNER_REF, controller: false, blockOwnerDeletion: false }] },
  });
});

Deno.test("removeOwnerReference() removes only the owner's references", () => {
  const other = { ...OWNER_REF, uid: "other-uid" };
  const obj = { metadata: { ownerReferences: [OWNER_REF, other] } };
  removeOwnerReference(obj, { owner: OWNER });
  assertEquals(obj, { metadata: { ownerReferences: [other] } });
});

Deno.test("inside a handler, the owner defaults to the object being handled", async () => {
  const objs = children();
  await inHandler(async () => {
    await Promise.resolve();
    appendOwnerReference(objs);
  });
  assertEquals(objs[0], { kind: "Job", metadata: { ownerReferences: [OWNER_REF] } });
  inHandler(() => removeOwnerReference(objs));
  assertEquals(objs[0], { kind: "Job", metadata: { ownerReferences: [] } });
});

Deno.test("outside a handler, helpers without an explicit owner say how to fix the call", () => {
  assertThrows(
    () => adopt({}),
    UsageError,
    "kopf.adopt() needs an owner: pass { owner } explicitly",
  );
  assertThrows(() => label({}), UsageError, "kopf.label() needs an owner");
  assertThrows(() => harmonizeNaming({}), UsageError, "kopf.harmonizeNaming() needs an owner");
  assertThrows(() => adjustNamespace({}), UsageError, "kopf.adjustNamespace() needs an owner");
});

Deno.test("label() adds labels but keeps existing ones unless forced", () => {
  const objs: JsonObject[] = [{ kind: "Job", metadata: { labels: { label1: "old" } } }, {
    kind: "Deployment",
  }];
  label(objs, { label1: "value1", label2: "value2" });
  assertEquals(objs, [
    { kind: "Job", metadata: { labels: { label1: "old", label2: "value2" } } },
    { kind: "Deployment", metadata: { labels: { label1: "value1", label2: "value2" } } },
  ]);
  label(objs, { label1: "new" }, { forced: true });
  assertEquals((objs[0].metadata as JsonObject).labels, { label1: "new", label2: "value2" });
});

Deno.test("label() with forced and a null value removes the label", () => {
  const obj = { metadata: { labels: { a: "1", b: "2" } as Record<string, string> } };
  label(obj, { a: null }, { forced: true });
  label(obj, { b: null });
  assertEquals(obj.metadata.labels, { b: "2" });
});

Deno.test("label() without labels uses the labels of the object being handled", () => {
  const objs = children();
  inHandler(() => label(objs));
  assertEquals(objs, [
    { kind: "Job", metadata: { labels: { somelabel: "somevalue" } } },
    { kind: "Deployment", metadata: { labels: { somelabel: "somevalue" } } },
  ]);
});

Deno.test("an empty labels object changes nothing but metadata", () => {
  const obj: JsonObject = { kind: "Job" };
  inHandler(() => label(obj, {}));
  assertEquals(obj, { kind: "Job", metadata: { labels: {} } });
});

Deno.test("nested paths get the labels too, only where those structures already exist", () => {
  const objs: JsonObject[] = [{ kind: "Job" }, { kind: "Deployment", spec: { template: {} } }];
  label(objs, { label1: "value1" }, { nested: "spec.template" });
  inHandler(() => label(objs, null, { nested: ["spec.template"] }));
  const labels = { label1: "value1", somelabel: "somevalue" };
  assertEquals(objs, [
    { kind: "Job", metadata: { labels } },
    { kind: "Deployment", metadata: { labels }, spec: { template: { metadata: { labels } } } },
  ]);
});

Deno.test("nested paths may be given as lists of keys", () => {
  const obj = { spec: { jobTemplate: { spec: { template: {} } } } };
  label(obj, { a: "b" }, { nested: [["spec", "jobTemplate", "spec", "template"]] });
  assertEquals(obj.spec.jobTemplate.spec.template, { metadata: { labels: { a: "b" } } });
});

Deno.test("harmonizeNaming() gives unnamed objects a generateName prefix by default", () => {
  const objs: JsonObject[] = [{ kind: "Job" }, { kind: "Pod", metadata: { name: "kept" } }];
  harmonizeNaming(objs, "some-name");
  assertEquals(objs, [
    { kind: "Job", metadata: { generateName: "some-name-" } },
    { kind: "Pod", metadata: { name: "kept" } },
  ]);
});

Deno.test("harmonizeNaming() keeps existing names unless forced, and strict gives exact names", () => {
  const objs: JsonObject[] = [{ metadata: { generateName: "x-" } }, { metadata: { name: "y" } }];
  harmonizeNaming(objs, "some-name", { strict: true });
  assertEquals(objs, [{ metadata: { generateName: "x-" } }, { metadata: { name: "y" } }]);
  harmonizeNaming(objs, "some-name", { strict: true, forced: true });
  assertEquals(objs, [{ metadata: { name: "some-name" } }, { metadata: { name: "some-name" } }]);
  harmonizeNaming(objs, "other", { forced: true });
  assertEquals(objs, [{ metadata: { generateName: "other-" } }, {
    metadata: { generateName: "other-" },
  }]);
});

Deno.test("harmonizeNaming() without a name follows the object being handled", () => {
  const objs = children();
  inHandler(() => harmonizeNaming(objs, undefined, { forced: true, strict: true }));
  assertEquals(objs, [
    { kind: "Job", metadata: { name: "kopf-example-1" } },
    { kind: "Deployment", metadata: { name: "kopf-example-1" } },
  ]);
  const prefixed = children();
  inHandler(() => harmonizeNaming(prefixed));
  assertEquals(prefixed[0], { kind: "Job", metadata: { generateName: "kopf-example-1-" } });
});

Deno.test("harmonizeNaming() with no name anywhere fails clearly", () => {
  const nameless = { apiVersion: "v1", kind: "X", metadata: { uid: "u" } };
  runInObjectScope({ body: nameless, logger: createObjectLogger(nameless) }, () => {
    assertThrows(() => harmonizeNaming({}), UsageError, "pass the name explicitly");
  });
});

Deno.test("adjustNamespace() sets a namespace only where none is set, unless forced", () => {
  const objs: JsonObject[] = [{ kind: "Job" }, { kind: "Pod", metadata: { namespace: "mine" } }];
  adjustNamespace(objs, "target");
  assertEquals(objs, [
    { kind: "Job", metadata: { namespace: "target" } },
    { kind: "Pod", metadata: { namespace: "mine" } },
  ]);
  inHandler(() => adjustNamespace(objs, undefined, { forced: true }));
  assertEquals(objs, [
    { kind: "Job", metadata: { namespace: "default" } },
    { kind: "Pod", metadata: { namespace: "default" } },
  ]);
});

Deno.test("adopt() owns, names, places and labels the children in one call", () => {
  const objs = children();
  inHandler(() => adopt(objs, { strict: true, forced: true, nested: "spec.template" }));
  const metadata = {
    ownerReferences: [OWNER_REF],
    name: "kopf-example-1",
    namespace: "default",
    // The owner's labels, and the owner's kind, for kopf.on.child watches to select by.
    labels: { somelabel: "somevalue", "kopf.zalando.org/owner-kind": "KopfExample.kopf.dev" },
  };
  assertEquals(objs, [{ kind: "Job", metadata }, { kind: "Deployment", metadata }]);
});

Deno.test("adopt() with an explicit owner works outside of handlers and prefers existing values", () => {
  const obj: JsonObject = {
    kind: "Pod",
    metadata: { name: "mine", namespace: "elsewhere", labels: { somelabel: "own" } },
  };
  adopt(obj, { owner: OWNER });
  assertEquals(obj, {
    kind: "Pod",
    metadata: {
      name: "mine",
      namespace: "elsewhere",
      labels: { somelabel: "own", "kopf.zalando.org/owner-kind": "KopfExample.kopf.dev" },
      ownerReferences: [OWNER_REF],
    },
  });
});

Deno.test("adopting under a cluster-scoped owner leaves the children without a namespace", () => {
  const owner = {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: "team-a", uid: "ns-uid" },
  };
  const obj: JsonObject = { kind: "ClusterRole" };
  adopt(obj, { owner });
  assertEquals((obj.metadata as JsonObject).namespace, undefined);
  assertEquals((obj.metadata as JsonObject).generateName, "team-a-");
});

Deno.test("values that are not Kubernetes objects are rejected with a hint", () => {
  assertThrows(
    () => adopt(["not an object" as unknown as object], { owner: OWNER }),
    TypeError,
    "kopf.adopt() expects Kubernetes objects",
  );
});

Deno.test("an owner that cannot be referenced fails adopt() before anything is changed", () => {
  const objs = children();
  const draft = { apiVersion: "kopf.dev/v1", kind: "KopfExample", metadata: { name: "draft" } };
  assertThrows(() => adopt(objs, { owner: draft }), TypeError, "metadata.uid");
  assertEquals(objs, children());
});

Deno.test("adopt() labels the children with the owner's kind, not their nested templates", () => {
  const deployment: JsonObject = {
    kind: "Deployment",
    spec: { template: { metadata: { labels: {} } } },
  };
  adopt(deployment, { owner: OWNER, nested: "spec.template" });
  const meta = deployment.metadata as { labels: Record<string, string> };
  assertEquals(meta.labels["kopf.zalando.org/owner-kind"], "KopfExample.kopf.dev");
  const template = (deployment.spec as { template: { metadata: { labels: object } } }).template;
  assertEquals(template.metadata.labels, { somelabel: "somevalue" }, "only the owner's labels");
  // An owner of the core group is named by its kind alone.
  const pod: JsonObject = { kind: "Pod" };
  adopt(pod, { owner: { apiVersion: "v1", kind: "Service", metadata: { name: "s", uid: "u" } } });
  assertEquals((pod.metadata as { labels: object }).labels, {
    "kopf.zalando.org/owner-kind": "Service",
  });
});
