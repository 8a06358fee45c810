/**
 * `Status` bodies byte for byte as kube-apiserver writes them: metav1.Status' fields in Go's
 * struct order, the details' too, empty fields left out, and json.Encoder's newline.
 */
import { FakeCluster } from "../../../src/testing/mod.ts";
import { assertEquals } from "../../assert.ts";
import { configMap } from "./helpers.ts";

async function raw(
  cluster: FakeCluster,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; text: string }> {
  const response = await fetch(cluster.url + path, {
    method,
    headers: {
      ...(cluster.token ? { authorization: `Bearer ${cluster.token}` } : {}),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, text: await response.text() };
}

const CMS = "/api/v1/namespaces/default/configmaps";

Deno.test("Status: a 404 in struct order, with the encoder's newline", async () => {
  await using cluster = await FakeCluster.start();
  const { status, text } = await raw(cluster, "GET", `${CMS}/missing`);
  assertEquals(status, 404);
  assertEquals(
    text,
    `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",` +
      `"message":"configmaps \\"missing\\" not found","reason":"NotFound",` +
      `"details":{"name":"missing","kind":"configmaps"},"code":404}\n`,
  );
});

Deno.test("Status: a 409 AlreadyExists names the group before the kind", async () => {
  await using cluster = await FakeCluster.start();
  const lease = {
    apiVersion: "coordination.k8s.io/v1",
    kind: "Lease",
    metadata: { name: "l1" },
  };
  const path = "/apis/coordination.k8s.io/v1/namespaces/default/leases";
  assertEquals((await raw(cluster, "POST", path, lease)).status, 201);
  const { status, text } = await raw(cluster, "POST", path, lease);
  assertEquals(status, 409);
  assertEquals(
    text,
    `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",` +
      `"message":"leases.coordination.k8s.io \\"l1\\" already exists","reason":"AlreadyExists",` +
      `"details":{"name":"l1","group":"coordination.k8s.io","kind":"leases"},"code":409}\n`,
  );
});

Deno.test("Status: a 422 puts causes as reason, message, field; several in brackets", async () => {
  await using cluster = await FakeCluster.start();
  const { status, text } = await raw(cluster, "POST", CMS, {
    ...configMap("Bad_Name"),
    metadata: { name: "Bad_Name", labels: { "a b": "x" } },
  });
  assertEquals(status, 422);
  const body = JSON.parse(text);
  assertEquals(Object.keys(body), [
    "kind",
    "apiVersion",
    "metadata",
    "status",
    "message",
    "reason",
    "details",
    "code",
  ]);
  assertEquals(Object.keys(body.details), ["name", "kind", "causes"]);
  for (const cause of body.details.causes) {
    assertEquals(Object.keys(cause), ["reason", "message", "field"]);
  }
  assertEquals(body.details.causes.length > 1, true);
  assertEquals(body.message.startsWith(`ConfigMap "Bad_Name" is invalid: [`), true);
  assertEquals(body.message.endsWith("]"), true);
  assertEquals(text.endsWith("}\n"), true);
});

Deno.test("Status: a deletion's Status has details with the uid, and no code", async () => {
  await using cluster = await FakeCluster.start();
  const created = JSON.parse((await raw(cluster, "POST", CMS, configMap("gone"))).text);
  const { status, text } = await raw(cluster, "DELETE", `${CMS}/gone`);
  assertEquals(status, 200);
  assertEquals(
    text,
    `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success",` +
      `"details":{"name":"gone","kind":"configmaps","uid":"${created.metadata.uid}"}}\n`,
  );
});

Deno.test("Status: a 403 for a terminating namespace names the qualified resource", async () => {
  await using cluster = await FakeCluster.start();
  const ns = { apiVersion: "v1", kind: "Namespace", metadata: { name: "going" } };
  await raw(cluster, "POST", "/api/v1/namespaces", ns);
  // A finalizer nobody removes keeps the namespace terminating.
  const held = configMap("held", {}, { finalizers: ["example.com/hold"] });
  await raw(cluster, "POST", "/api/v1/namespaces/going/configmaps", held);
  const path = "/apis/coordination.k8s.io/v1/namespaces/going/leases";
  const lease = { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "l" } };
  await raw(cluster, "DELETE", "/api/v1/namespaces/going");
  const { status, text } = await raw(cluster, "POST", path, lease);
  assertEquals(status, 403);
  assertEquals(
    text,
    `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",` +
      `"message":"leases.coordination.k8s.io \\"l\\" is forbidden: unable to create new content ` +
      `in namespace going because it is being terminated","reason":"Forbidden",` +
      `"details":{"name":"l","group":"coordination.k8s.io","kind":"leases"},"code":403}\n`,
  );
});

Deno.test("JSON bodies and watch events escape <, > and & as Go's encoder does", async () => {
  await using cluster = await FakeCluster.start();
  const { text } = await raw(cluster, "POST", CMS, configMap("html", { v: "<a&b>" }));
  const escaped = `"v":"\\u003ca\\u0026b\\u003e"`;
  assertEquals(text.includes(escaped), true);
  assertEquals(JSON.parse(text).data.v, "<a&b>");
  // A watch's events are written by the same encoder: the initial one, and a live one.
  const controller = new AbortController();
  const response = await fetch(`${cluster.url}${CMS}?watch=true`, {
    headers: cluster.token ? { authorization: `Bearer ${cluster.token}` } : {},
    signal: controller.signal,
  });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  cluster.patch("configmaps", "html", { data: { w: "x>y" } });
  let lines = "";
  while (lines.split("\n").length < 3) lines += (await reader.read()).value ?? "";
  controller.abort();
  await reader.cancel().catch(() => {});
  const [added, modified] = lines.split("\n");
  assertEquals(added.includes(escaped), true, added);
  assertEquals(modified.includes(`"w":"x\\u003ey"`), true, modified);
});
