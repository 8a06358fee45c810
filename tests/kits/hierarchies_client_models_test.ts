import {
  V1Deployment,
  V1ObjectMeta,
  V1OwnerReference,
  V1Pod,
  V1PodTemplateSpec,
} from "@kubernetes/client-node";
import { assertEquals } from "../assert.ts";
import { adopt, label, removeOwnerReference } from "../../src/kits/hierarchies.ts";
import { createObjectLogger, runInObjectScope } from "../../src/handling/object_loggers.ts";
import { runWithPostingTarget } from "../../src/handling/posting_queue.ts";
import { info } from "../../src/engines/posting.ts";
import { drain, postingTarget } from "../handling/posting_targets.ts";

const OWNER = new V1Pod();
OWNER.apiVersion = "v1";
OWNER.kind = "Pod";
OWNER.metadata = new V1ObjectMeta();
OWNER.metadata.name = "parent";
OWNER.metadata.namespace = "team";
OWNER.metadata.uid = "uid-p";
OWNER.metadata.labels = { app: "demo" };

Deno.test("client-node models without metadata are adopted and come out like plain bodies", () => {
  const pod = new V1Pod();
  runInObjectScope({ body: OWNER, logger: createObjectLogger(OWNER) }, () => adopt(pod));
  // client-node 1.x models use the API's own field names, so JSON is their wire form.
  assertEquals(JSON.parse(JSON.stringify(pod)), {
    metadata: {
      ownerReferences: [{
        controller: true,
        blockOwnerDeletion: true,
        apiVersion: "v1",
        kind: "Pod",
        name: "parent",
        uid: "uid-p",
      }],
      generateName: "parent-",
      namespace: "team",
      labels: { app: "demo", "kopf.zalando.org/owner-kind": "Pod" },
    },
  });
});

Deno.test("client-node models keep their own metadata and owner-reference instances", () => {
  const pod = new V1Pod();
  pod.metadata = new V1ObjectMeta();
  pod.metadata.name = "own-name";
  const existing = new V1OwnerReference();
  existing.apiVersion = "v1";
  existing.kind = "ConfigMap";
  existing.name = "cm";
  existing.uid = "uid-cm";
  pod.metadata.ownerReferences = [existing];
  const meta = pod.metadata;
  adopt(pod, { owner: OWNER });
  assertEquals(pod.metadata === meta, true);
  assertEquals(pod.metadata.name, "own-name");
  assertEquals(pod.metadata.ownerReferences?.map((r) => r.uid), ["uid-cm", "uid-p"]);
  removeOwnerReference(pod, { owner: OWNER });
  assertEquals(pod.metadata.ownerReferences, [existing]);
});

Deno.test("nested templates of client-node models are labelled too", () => {
  const deployment = new V1Deployment();
  deployment.spec = { selector: {}, template: new V1PodTemplateSpec() };
  label(deployment, { tier: "web" }, { nested: "spec.template" });
  assertEquals(deployment.metadata?.labels, { tier: "web" });
  assertEquals(deployment.spec.template.metadata?.labels, { tier: "web" });
});

Deno.test("events can be posted about client-node models", () => {
  const target = postingTarget();
  runWithPostingTarget(target, () => info([OWNER], { reason: "Seen", message: "a model" }));
  assertEquals(drain(target.queue), [{
    ref: { apiVersion: "v1", kind: "Pod", name: "parent", uid: "uid-p", namespace: "team" },
    type: "Normal",
    reason: "Seen",
    message: "a model",
  }]);
});
