/**
 * Built-in objects are decoded as their Go types: unknown fields dropped and reported per
 * `fieldValidation`, repeated fields of a JSON body too, by every write of the HTTP API and
 * by the direct API.
 */
import { FakeCluster } from "../../../src/testing/mod.ts";
import { assert, assertEquals, assertStringIncludes } from "../../assert.ts";
import { call, configMap } from "./helpers.ts";
import { filled, quote } from "../../doc_quotes.ts";

const CMS = "/api/v1/namespaces/default/configmaps";
const DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments";

/** The `Warning` headers of a reply, each as its quoted text. */
function warnings(headers: Headers): string[] {
  const header = headers.get("warning");
  if (!header) return [];
  return [...header.matchAll(/299 - ("(?:[^"\\]|\\.)*")/g)].map((m) => JSON.parse(m[1]));
}

function deployment(name: string, podSpec: Record<string, unknown>) {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name },
    spec: {
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: podSpec },
    },
  };
}

Deno.test("POST of a ConfigMap with a status: 201 without it, and a warning naming it", async () => {
  await using cluster = await FakeCluster.start();
  const reply = await call(cluster, "POST", CMS, {
    ...configMap("a", { k: "v" }),
    status: { x: 1 },
  });
  assertEquals(reply.status, 201);
  assertEquals(reply.body.status, undefined);
  assertEquals(reply.body.data, { k: "v" });
  assertEquals(warnings(reply.headers), ['unknown field "status"']);
  const stored = await call(cluster, "GET", `${CMS}/a`);
  assertEquals(stored.body.status, undefined);
});

Deno.test("fieldValidation=Strict refuses a built-in's unknown field as the API server words it", async () => {
  await using cluster = await FakeCluster.start();
  const body = { ...configMap("a"), status: { x: 1 }, extra: true };
  const strict = await call(cluster, "POST", `${CMS}?fieldValidation=Strict`, body);
  assertEquals([strict.status, strict.body.reason], [400, "BadRequest"]);
  // As docs/testing.md quotes it.
  const words = await quote("testing.md", 'ConfigMap in version "v1"');
  assertEquals(strict.body.message, filled(words, 'unknown field "status", unknown field "extra"'));
  assertEquals((await call(cluster, "GET", `${CMS}/a`)).status, 404);
  const ignored = await call(cluster, "POST", `${CMS}?fieldValidation=Ignore`, body);
  assertEquals([ignored.status, warnings(ignored.headers)], [201, []]);
  assertEquals([ignored.body.status, ignored.body.extra], [undefined, undefined]);
});

Deno.test("unknown fields nested in a Deployment's pod template and its list items are dropped", async () => {
  await using cluster = await FakeCluster.start();
  const body = deployment("web", {
    containers: [{ name: "app", image: "nginx", colour: "red" }],
    nodeName: "n1",
    bogus: { deep: 1 },
  });
  const reply = await call(cluster, "POST", DEPLOYMENTS, body);
  assertEquals(reply.status, 201);
  assertEquals(warnings(reply.headers), [
    await quote("testing.md", 'unknown field "spec.template'), // as docs/testing.md quotes it
    'unknown field "spec.template.spec.bogus"',
  ]);
  const pod = reply.body.spec.template.spec;
  assertEquals(pod.bogus, undefined);
  assertEquals(pod.nodeName, "n1");
  assertEquals(pod.containers[0].colour, undefined);
  assertEquals(pod.containers[0].image, "nginx");
  const strict = await call(cluster, "POST", `${DEPLOYMENTS}?fieldValidation=Strict`, {
    ...body,
    metadata: { name: "strict" },
  });
  assertEquals(strict.status, 400);
  assertStringIncludes(
    strict.body.message,
    'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.template.spec.containers[0].colour"',
  );
});

Deno.test("PUT, and PUT of the status subresource, decode the whole body", async () => {
  await using cluster = await FakeCluster.start();
  await call(cluster, "POST", CMS, configMap("a"));
  const put = await call(cluster, "PUT", `${CMS}/a`, { ...configMap("a", { k: "v" }), status: 1 });
  assertEquals([put.status, put.body.status, put.body.data], [200, undefined, { k: "v" }]);
  assertEquals(warnings(put.headers), ['unknown field "status"']);
  const body = deployment("web", { containers: [{ name: "app", image: "nginx" }] });
  await call(cluster, "POST", DEPLOYMENTS, body);
  const current = (await call(cluster, "GET", `${DEPLOYMENTS}/web`)).body;
  const status = await call(
    cluster,
    "PUT",
    `${DEPLOYMENTS}/web/status?fieldValidation=Strict`,
    { ...current, status: { replicas: 1, shiny: true } },
  );
  assertEquals(status.status, 400);
  assertStringIncludes(status.body.message, 'unknown field "status.shiny"');
  const warned = await call(cluster, "PUT", `${DEPLOYMENTS}/web/status`, {
    ...current,
    status: { replicas: 1, shiny: true },
  });
  assertEquals([warned.status, warned.body.status], [200, { replicas: 1 }]);
  assertEquals(warnings(warned.headers), ['unknown field "status.shiny"']);
});

Deno.test("patches of every type drop unknown fields; Strict refuses them with a 422", async () => {
  await using cluster = await FakeCluster.start();
  await call(cluster, "POST", CMS, configMap("a", { k: "v" }));
  const types = {
    merge: "application/merge-patch+json",
    strategic: "application/strategic-merge-patch+json",
    json: "application/json-patch+json",
  };
  const patches = {
    merge: { status: { x: 1 } },
    strategic: { status: { x: 1 } },
    json: [{ op: "add", path: "/status", value: { x: 1 } }],
  };
  for (const [name, type] of Object.entries(types)) {
    const patch = patches[name as keyof typeof patches];
    const headers = { "content-type": type };
    const warned = await call(cluster, "PATCH", `${CMS}/a`, patch, headers);
    assertEquals([name, warned.status, warned.body.status], [name, 200, undefined]);
    assertEquals(warnings(warned.headers), ['unknown field "status"'], name);
    const strict = await call(cluster, "PATCH", `${CMS}/a?fieldValidation=Strict`, patch, headers);
    assertEquals([name, strict.status, strict.body.reason], [name, 422, "Invalid"]);
    assertStringIncludes(strict.body.message, ' "" is invalid: patch: Invalid value: ');
    assertStringIncludes(strict.body.message, ': strict decoding error: unknown field "status"');
    assertEquals(strict.body.details.causes[0].field, "patch");
  }
  // A strategic merge patch is shown as Go prints the patch; the others as the patched object.
  const smp = await call(
    cluster,
    "PATCH",
    `${CMS}/a?fieldValidation=Strict`,
    { status: { x: 1 } },
    { "content-type": types.strategic },
  );
  assertEquals(
    smp.body.message,
    ' "" is invalid: patch: Invalid value: "map[status:map[x:1]]": strict decoding error: unknown field "status"',
  );
  const stored = await call(cluster, "GET", `${CMS}/a`);
  assertEquals([stored.body.status, stored.body.data], [undefined, { k: "v" }]);
});

Deno.test("repeated fields of a JSON body: warned, the Go struct's merge or the last value kept", async () => {
  await using cluster = await FakeCluster.start();
  const text = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},' +
    '"metadata":{"labels":{"x":"1"}},"data":{"k":"1","k":"2"}}';
  const reply = await call(cluster, "POST", CMS, text);
  assertEquals(reply.status, 201);
  assertEquals(warnings(reply.headers), [
    'duplicate field "metadata"',
    await quote("testing.md", "duplicate field "), // as docs/testing.md quotes it
  ]);
  assertEquals(reply.body.metadata.name, "a");
  assertEquals(reply.body.metadata.labels, { x: "1" });
  assertEquals(reply.body.data, { k: "2" });
  const strict = await call(cluster, "POST", `${CMS}?fieldValidation=Strict`, text);
  assertEquals(strict.status, 400);
  assertStringIncludes(
    strict.body.message,
    'strict decoding error: duplicate field "metadata", duplicate field "data.k"',
  );
  const patch = await call(
    cluster,
    "PATCH",
    `${CMS}/a?fieldValidation=Strict`,
    '{"data":{"k":"3","k":"4"}}',
    { "content-type": "application/merge-patch+json" },
  );
  assertEquals(patch.status, 422);
  assertStringIncludes(patch.body.message, 'strict decoding error: duplicate field "data.k"');
  const ignored = await call(
    cluster,
    "PATCH",
    `${CMS}/a?fieldValidation=Ignore`,
    '{"data":{"k":"3","k":"4"}}',
    { "content-type": "application/merge-patch+json" },
  );
  assertEquals([ignored.status, ignored.body.data, warnings(ignored.headers)], [
    200,
    { k: "4" },
    [],
  ]);
});

Deno.test("server-side apply of an unknown field fails whatever the fieldValidation", async () => {
  await using cluster = await FakeCluster.start();
  const apply = (path: string, body: unknown) =>
    call(cluster, "PATCH", path, body, { "content-type": "application/apply-patch+yaml" });
  const config = { ...configMap("a", { k: "v" }), status: { x: 1 } };
  const failed = await apply(`${CMS}/a?fieldManager=test&fieldValidation=Ignore`, config);
  // No reason: metav1.Status leaves an empty one out (omitempty).
  assertEquals([failed.status, "reason" in failed.body], [500, false]);
  // The configuration names no namespace, and the message shows the configuration's own; the
  // rest as docs/testing.md quotes it.
  const words = await quote("testing.md", "failed to create typed patch object");
  assertEquals(failed.body.message, filled(words, "/a; /v1, Kind=ConfigMap"));
  const web = deployment("web", { containers: [{ name: "app", image: "nginx", colour: "red" }] });
  const nested = await apply(`${DEPLOYMENTS}/web?fieldManager=test`, web);
  assertEquals(nested.status, 500);
  assertStringIncludes(
    nested.body.message,
    '(/web; apps/v1, Kind=Deployment): .spec.template.spec.containers[name="app"].colour: field not declared in schema',
  );
  const repeated = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b"},' +
    '"data":{"k":"1","k":"2"}}';
  const strict = await apply(`${CMS}/b?fieldManager=test&fieldValidation=Strict`, repeated);
  assertEquals(strict.status, 400);
  assertEquals(
    strict.body.message,
    'error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line 1: key "k" already set in map',
  );
  const warned = await apply(`${CMS}/b?fieldManager=test`, repeated);
  assertEquals([warned.status, warned.body.data], [201, { k: "2" }]);
  assertEquals(warnings(warned.headers), ['line 1: key "k" already set in map']);
});

Deno.test("the direct API stores what the HTTP API would", async () => {
  await using cluster = await FakeCluster.start();
  const created = cluster.create({ ...configMap("a", { k: "v" }), status: { x: 1 } });
  assertEquals(created.status, undefined);
  const patched = cluster.patch({ apiVersion: "v1", kind: "ConfigMap" }, "a", {
    status: { y: 2 },
  }, { namespace: "default" });
  assertEquals(patched.status, undefined);
  let refused = false;
  try {
    cluster.apply({ ...configMap("a"), status: { x: 1 } }, { fieldManager: "test" });
  } catch (error) {
    refused = true;
    assertStringIncludes(String(error), ".status: field not declared in schema");
  }
  assert(refused, "apply of an unknown field fails");
});

Deno.test("kinds without a field table keep every field", async () => {
  await using cluster = await FakeCluster.start();
  const lease = {
    apiVersion: "coordination.k8s.io/v1",
    kind: "Lease",
    metadata: { name: "l" },
    spec: { holderIdentity: "me" },
  };
  const reply = await call(
    cluster,
    "POST",
    "/apis/coordination.k8s.io/v1/namespaces/default/leases?fieldValidation=Strict",
    lease,
  );
  assertEquals([reply.status, reply.body.spec.holderIdentity], [201, "me"]);
});

Deno.test("the scale subresource decodes a Scale: its unknown fields dropped and reported", async () => {
  await using cluster = await FakeCluster.start();
  await call(cluster, "POST", DEPLOYMENTS, deployment("web", { containers: [{ name: "app" }] }));
  const scale = `${DEPLOYMENTS}/web/scale`;
  const current = (await call(cluster, "GET", scale)).body;
  const put = await call(cluster, "PUT", scale, { ...current, spec: { replicas: 3, turbo: 1 } });
  assertEquals([put.status, put.body.spec], [200, { replicas: 3 }]);
  assertEquals(warnings(put.headers), ['unknown field "spec.turbo"']);
  const strict = await call(cluster, "PUT", `${scale}?fieldValidation=Strict`, {
    ...current,
    spec: { replicas: 4 },
    extra: 1,
  });
  assertEquals(strict.status, 400);
  assertEquals(
    strict.body.message,
    'Scale in version "v1" cannot be handled as a Scale: strict decoding error: unknown field "extra"',
  );
  const patched = await call(cluster, "PATCH", `${scale}?fieldValidation=Strict`, {
    spec: { replicas: 5, turbo: 1 },
  }, { "content-type": "application/merge-patch+json" });
  assertEquals([patched.status, patched.body.reason], [422, "Invalid"]);
  assertStringIncludes(patched.body.message, 'strict decoding error: unknown field "spec.turbo"');
  const stored = (await call(cluster, "GET", `${DEPLOYMENTS}/web`)).body;
  assertEquals(stored.spec.replicas, 3);
});

Deno.test("repeats within an unknown field are not reported; a JSON patch's are its own", async () => {
  await using cluster = await FakeCluster.start();
  const text = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},' +
    '"status":{"x":1,"x":2},"bogus":1,"bogus":2}';
  const reply = await call(cluster, "POST", CMS, text);
  assertEquals(reply.status, 201);
  assertEquals(warnings(reply.headers), ['unknown field "status"', 'unknown field "bogus"']);
  const patch = '[{"op":"add","path":"/data","value":{"k":"1","k":"2"},"note":"hi"}]';
  const strict = await call(cluster, "PATCH", `${CMS}/a?fieldValidation=Strict`, patch, {
    "content-type": "application/json-patch+json",
  });
  assertEquals(strict.status, 422);
  assertStringIncludes(
    strict.body.message,
    ': strict decoding error: json patch duplicate field "[0].value.k", json patch unknown field "[0].note"',
  );
  const warned = await call(cluster, "PATCH", `${CMS}/a`, patch, {
    "content-type": "application/json-patch+json",
  });
  assertEquals([warned.status, warned.body.data], [200, { k: "2" }]);
  assertEquals(warnings(warned.headers), [
    'json patch duplicate field "[0].value.k"',
    'json patch unknown field "[0].note"',
  ]);
});
