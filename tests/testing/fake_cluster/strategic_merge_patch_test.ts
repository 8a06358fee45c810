/**
 * Strategic merge patch with the built-in kinds' merge keys and kubectl's directives, as
 * Kubernetes' apimachinery applies it (including where it puts new list items: first).
 */
import { strategicMergePatch } from "../../../src/testing/fake_cluster/strategic_merge_patch.ts";
import { kindMessage } from "../../../src/testing/fake_cluster/builtin_messages.ts";
import { ApiError } from "../../../src/testing/fake_cluster/errors.ts";
import type { JsonObject, JsonValue } from "../../../src/structs/bodies.ts";
import { assertEquals, assertStringIncludes, assertThrows } from "../../assert.ts";

const POD = kindMessage("v1", "Pod");
const DEPLOYMENT = kindMessage("apps/v1", "Deployment");
// deno-lint-ignore no-explicit-any
const patchPod = (pod: JsonObject, patch: JsonValue): any => strategicMergePatch(pod, patch, POD);

Deno.test("strategic merge: directives — $patch replace/delete, $retainKeys, $deleteFromPrimitiveList, $setElementOrder", () => {
  const pod: JsonObject = {
    metadata: { finalizers: ["a", "b"], labels: { x: "1", y: "2" } },
    spec: {
      containers: [
        { name: "a", image: "a:1", ports: [{ containerPort: 80, name: "http" }] },
        { name: "b", image: "b:1" },
      ],
      tolerations: [{ key: "t1" }],
    },
  };
  const before = structuredClone(pod);
  const result = patchPod(pod, {
    metadata: {
      "$deleteFromPrimitiveList/finalizers": ["a"],
      labels: { $patch: "replace", z: "3" },
    },
    spec: {
      "$setElementOrder/containers": [{ name: "c" }, { name: "b" }, { name: "a" }],
      containers: [
        { name: "c", image: "c:1" },
        { name: "a", ports: [{ containerPort: 443, name: "https" }] },
      ],
      tolerations: [{ key: "t2" }],
    },
  });
  assertEquals(pod, before, "the input is not changed");
  assertEquals(result.metadata, { finalizers: ["b"], labels: { z: "3" } });
  assertEquals(result.spec.containers.map((c: JsonObject) => c.name), ["c", "b", "a"]);
  // Ports merge by containerPort; without $setElementOrder a new item comes first.
  assertEquals(result.spec.containers[2].ports, [
    { containerPort: 443, name: "https" },
    { containerPort: 80, name: "http" },
  ]);
  assertEquals(result.spec.tolerations, [{ key: "t2" }], "tolerations are atomic: replaced");

  const retained = patchPod({ spec: { hostname: "h", subdomain: "s", nodeName: "n" } }, {
    spec: { $retainKeys: ["hostname", "nodeName"], nodeName: "m" },
  });
  assertEquals(retained, { spec: { hostname: "h", nodeName: "m" } });
  const replacedList = patchPod(pod, {
    spec: { containers: [{ $patch: "replace" }, { name: "only" }] },
  });
  assertEquals(replacedList.spec.containers, [{ name: "only" }]);
  const deletedItem = patchPod(pod, { spec: { containers: [{ name: "a", $patch: "delete" }] } });
  assertEquals(deletedItem.spec.containers, [{ name: "b", image: "b:1" }]);
  // `$patch: delete` on a map leaves it empty, as apimachinery does.
  const deletedMap = patchPod({ spec: { securityContext: { runAsUser: 1 } } }, {
    spec: { securityContext: { $patch: "delete" } },
  });
  assertEquals(deletedMap.spec.securityContext, {});
});

Deno.test("strategic merge: containers by name, env by name, volumes by name, mounts by mountPath", () => {
  const deployment: JsonObject = {
    spec: {
      replicas: 2,
      template: {
        spec: {
          containers: [{
            name: "nginx",
            image: "nginx",
            env: [{ name: "A", value: "1" }, { name: "B", value: "2" }],
            volumeMounts: [{ name: "data", mountPath: "/data" }],
          }],
          volumes: [{ name: "data", emptyDir: {} }],
          imagePullSecrets: [{ name: "one" }],
        },
      },
    },
  };
  // deno-lint-ignore no-explicit-any
  const result: any = strategicMergePatch(deployment, {
    spec: {
      template: {
        spec: {
          containers: [
            {
              name: "nginx",
              image: "nginx:1.27",
              env: [{ name: "B", value: "two" }, { name: "C", value: "3" }],
              volumeMounts: [{ name: "cache", mountPath: "/cache" }],
            },
            { name: "sidecar", image: "busybox" },
          ],
          volumes: [{ name: "cache", emptyDir: { medium: "Memory" } }],
          imagePullSecrets: [{ name: "two" }],
        },
      },
    },
  }, DEPLOYMENT);
  const spec = result.spec.template.spec;
  assertEquals(spec.containers.map((c: JsonObject) => c.name), ["nginx", "sidecar"]);
  const nginx = spec.containers[0];
  assertEquals(nginx.image, "nginx:1.27");
  // Items the patch names keep their live places; the new one follows them here.
  assertEquals(nginx.env, [
    { name: "A", value: "1" },
    { name: "B", value: "two" },
    { name: "C", value: "3" },
  ]);
  assertEquals(nginx.volumeMounts.map((m: JsonObject) => m.mountPath), ["/cache", "/data"]);
  assertEquals(spec.volumes.map((v: JsonObject) => v.name), ["cache", "data"]);
  assertEquals(spec.imagePullSecrets, [{ name: "two" }, { name: "one" }]);
  assertEquals(result.spec.replicas, 2);

  // A new container alone goes first; the existing one is kept whole.
  const added: JsonObject = strategicMergePatch(result, {
    spec: { template: { spec: { containers: [{ name: "third", image: "x" }] } } },
  }, DEPLOYMENT) as JsonObject;
  // deno-lint-ignore no-explicit-any
  const names = (added as any).spec.template.spec.containers.map((c: JsonObject) => c.name);
  assertEquals(names, ["third", "nginx", "sidecar"]);
});

Deno.test("strategic merge: the merge key depends on the type — service ports, service-account lists", () => {
  const service = kindMessage("v1", "Service");
  // deno-lint-ignore no-explicit-any
  const svc: any = strategicMergePatch(
    { spec: { ports: [{ port: 80, targetPort: 8080 }, { port: 443, targetPort: 8443 }] } },
    { spec: { ports: [{ port: 443, targetPort: 9443 }] } },
    service,
  );
  assertEquals(svc.spec.ports, [{ port: 80, targetPort: 8080 }, { port: 443, targetPort: 9443 }]);
  const account = kindMessage("v1", "ServiceAccount");
  const sa = strategicMergePatch(
    { secrets: [{ name: "a" }], imagePullSecrets: [{ name: "p1" }] },
    { secrets: [{ name: "b" }], imagePullSecrets: [{ name: "p2" }] },
    account,
  );
  // ServiceAccount.secrets merge by name; its imagePullSecrets are atomic (PodSpec's merge).
  assertEquals(sa, { secrets: [{ name: "b" }, { name: "a" }], imagePullSecrets: [{ name: "p2" }] });
});

Deno.test("strategic merge: metadata — finalizers as a set, owner references by uid", () => {
  const object = {
    metadata: {
      finalizers: ["a"],
      ownerReferences: [{ uid: "1", name: "one" }, { uid: "2", name: "two" }],
    },
  };
  const merged = patchPod(object, {
    metadata: { finalizers: ["b", "a"], ownerReferences: [{ uid: "2", name: "TWO" }] },
  });
  assertEquals(merged.metadata.finalizers, ["b", "a"]);
  assertEquals(merged.metadata.ownerReferences, [
    { uid: "1", name: "one" },
    { uid: "2", name: "TWO" },
  ]);
  assertEquals(patchPod(object, { metadata: { finalizers: ["z"] } }).metadata.finalizers, [
    "z",
    "a",
  ]);
});

Deno.test("strategic merge: kinds without a table merge metadata and webhooks, replace other lists", () => {
  const config: JsonObject = {
    metadata: { finalizers: ["a"] },
    webhooks: [{ name: "one", sideEffects: "None" }, { name: "two" }],
    other: [1, 2],
  };
  const merged = strategicMergePatch(config, {
    metadata: { finalizers: ["b"] },
    webhooks: [{ name: "two", timeoutSeconds: 5 }],
    other: [3],
  });
  assertEquals(merged, {
    metadata: { finalizers: ["b", "a"] },
    webhooks: [{ name: "one", sideEffects: "None" }, { name: "two", timeoutSeconds: 5 }],
    other: [3],
  });
});

Deno.test("strategic merge: a malformed patch is a 400 that says what is wrong", () => {
  const pod = { spec: { containers: [{ name: "a" }] } };
  const bad = (patch: JsonValue) => assertThrows(() => patchPod(pod, patch), ApiError);
  const noKey = bad({ spec: { containers: [{ image: "x" }] } });
  assertEquals(noKey.code, 400);
  assertStringIncludes(noKey.message, 'lacks its merge key "name"');
  assertStringIncludes(bad({ spec: { $patch: "merge" } }).message, '"$patch: merge"');
  assertStringIncludes(
    bad({ spec: { containers: [{ name: "a", $patch: "frob" }] } }).message,
    '"$patch: frob"',
  );
  assertStringIncludes(
    bad({ spec: { $retainKeys: ["hostname"], nodeName: "n" } }).message,
    "$retainKeys does not list",
  );
  assertStringIncludes(
    bad({
      spec: {
        "$setElementOrder/containers": [{ name: "a" }, { name: "b" }],
        containers: [{ name: "b" }, { name: "a" }],
      },
    }).message,
    "does not match $setElementOrder/containers",
  );
});
