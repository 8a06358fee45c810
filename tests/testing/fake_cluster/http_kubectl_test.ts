/**
 * End to end with the real kubectl: FakeCluster must satisfy a client nobody here wrote.
 * Skipped when kubectl is not installed.
 */
import { FakeCluster } from "../../../src/testing/mod.ts";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../../assert.ts";
import { exampleCrd } from "./helpers.ts";
import { hasKubectl, Kubectl } from "./kubectl.ts";

const CRD = JSON.stringify(exampleCrd());
// deno-lint-ignore no-explicit-any
const specOf = (cluster: FakeCluster, name: string): any => cluster.get("kex", name)?.spec;
const example = (spec: Record<string, unknown>, name = "e1") =>
  JSON.stringify({ apiVersion: "kopf.dev/v1", kind: "KopfExample", metadata: { name }, spec });
const cm = (data: Record<string, string>) =>
  JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm" }, data });

Deno.test({
  name: "kubectl: apply a CRD and its objects; get by name, short name, category, as JSON and YAML",
  ignore: !hasKubectl,
  async fn() {
    await using cluster = await FakeCluster.start();
    await using k = await Kubectl.for(cluster);
    assertStringIncludes((await k.apply(CRD)).out, "created");
    assertStringIncludes(
      (await k.apply(example({ field: "x" }))).out,
      "kopfexample.kopf.dev/e1 created",
    );
    const got = await k.json(["get", "kopfexamples", "e1"]);
    assertEquals(got.spec, { field: "x", replicas: 1 });
    assertStringIncludes((await k.run(["get", "kex", "e1", "-o", "yaml"])).out, "field: x");
    const table = (await k.run(["get", "kopf"])).out;
    assertStringIncludes(table, "FIELD");
    assertStringIncludes(table, "e1");
    assertStringIncludes((await k.run(["get", "all"])).out, "kopfexample.kopf.dev/e1");
    // As a real cluster shows CRDs: when, not how long ago, and no AGE beside it.
    const crds = (await k.run(["get", "crd"])).out.trim().split("\n");
    assertEquals(crds[0].split(/\s+/), ["NAME", "CREATED", "AT"]);
    assertMatch(crds[1], /^kopfexamples\.kopf\.dev\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  },
});

Deno.test({
  name: "kubectl: label, annotate, patch as merge, json and strategic, replace",
  ignore: !hasKubectl,
  async fn() {
    await using cluster = await FakeCluster.start();
    await using k = await Kubectl.for(cluster);
    await k.apply(CRD);
    await k.apply(example({ field: "x" }));
    await k.run(["label", "kex", "e1", "color=red"]);
    await k.run(["annotate", "kex", "e1", "note=hello"]);
    await k.patch("kex", "e1", "merge", { spec: { field: "merged" } });
    await k.patch("kex", "e1", "json", [{ op: "replace", path: "/spec/replicas", value: 3 }]);
    const obj = cluster.get("kex", "e1")!;
    assertEquals(obj.metadata?.labels, { color: "red" });
    assertEquals(obj.metadata?.annotations?.note, "hello");
    assertEquals(obj.spec, { field: "merged", replicas: 3 });
    const failed = await k.patch("kex", "e1", "json", [{
      op: "test",
      path: "/spec/replicas",
      value: 9,
    }], {
      allowFailure: true,
    });
    assert(!failed.ok);
    assertStringIncludes(failed.err, "test failed");
    const refused = await k.patch("kex", "e1", "strategic", { spec: { field: "s" } }, {
      allowFailure: true,
    });
    assert(!refused.ok, "strategic merge is refused for custom resources");
    await k.apply(cm({ a: "1" }));
    await k.patch("configmap", "cm", "strategic", { data: { b: "2" } });
    assertEquals(cluster.get("configmaps", "cm")?.data, { a: "1", b: "2" });
    const current = await k.json(["get", "kex", "e1"]);
    current.spec.field = "replaced";
    await k.run(["replace", "-f", "-"], { stdin: JSON.stringify(current) });
    assertEquals(specOf(cluster, "e1").field, "replaced");
    const stale = await k.run(["replace", "-f", "-"], {
      stdin: JSON.stringify(current),
      allowFailure: true,
    });
    assert(!stale.ok);
    assertStringIncludes(stale.err, "the object has been modified");
  },
});

Deno.test({
  name:
    "kubectl: apply twice updates a ConfigMap and a custom resource; --dry-run=server changes nothing",
  ignore: !hasKubectl,
  async fn() {
    await using cluster = await FakeCluster.start();
    await using k = await Kubectl.for(cluster);
    await k.apply(CRD);
    await k.apply(cm({ a: "1", b: "2" }));
    assertStringIncludes(
      (await k.apply(cm({ a: "9" }))).out,
      "configured",
    );
    assertEquals(cluster.get("configmaps", "cm")?.data, { a: "9" });
    await k.apply(example({ field: "one" }));
    assertStringIncludes(
      (await k.apply(example({ field: "two" }))).out,
      "configured",
    );
    assertEquals(specOf(cluster, "e1").field, "two");
    assertEquals(cluster.get("kex", "e1")?.metadata?.generation, 2);
    const rv = cluster.resourceVersion;
    assertStringIncludes(
      (await k.apply(cm({ z: "0" }), ["--dry-run=server"])).out,
      "server dry run",
    );
    await k.run(["delete", "configmap", "cm", "--dry-run=server"]);
    await k.run(["create", "--dry-run=server", "-f", "-"], { stdin: example({}, "e2") });
    assertEquals(cluster.get("configmaps", "cm")?.data, { a: "9" });
    assertEquals(cluster.get("kex", "e2"), undefined);
    assertEquals(cluster.resourceVersion, rv);
  },
});

Deno.test({
  name: "kubectl: delete waits for a finalizer; wait --for=delete returns once it is patched away",
  ignore: !hasKubectl,
  async fn() {
    await using cluster = await FakeCluster.start();
    await using k = await Kubectl.for(cluster);
    await k.apply(CRD);
    await k.apply(example({}));
    await k.patch("kex", "e1", "merge", { metadata: { finalizers: ["kopf.dev/hold"] } });
    await k.run(["delete", "kex", "e1", "--wait=false"]);
    assert(cluster.get("kex", "e1")?.metadata?.deletionTimestamp, "marked for deletion");
    const waiting = k.run(["wait", "--for=delete", "kex/e1", "--timeout=20s"]);
    // Release the finalizer once kubectl's watch is open.
    await cluster.waitForRequest((r) => r.verb === "watch", { timeout: 20 });
    await k.patch("kex", "e1", "merge", { metadata: { finalizers: null } });
    const result = await waiting;
    assertStringIncludes(result.out, "condition met");
    assertEquals(cluster.get("kex", "e1"), undefined);
  },
});

Deno.test({
  name: "kubectl: get --watch receives changes as they happen",
  ignore: !hasKubectl,
  async fn() {
    await using cluster = await FakeCluster.start();
    await using k = await Kubectl.for(cluster);
    const child = new Deno.Command("kubectl", {
      args: [...k.args, "get", "configmaps", "--watch", "--output-watch-events"],
      stdout: "piped",
      stderr: "null",
    }).spawn();
    const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let seen = "";
    const until = async (pattern: RegExp) => {
      while (!pattern.test(seen)) {
        const { value, done } = await lines.read();
        if (done) {
          throw new Error(`kubectl get --watch ended before printing ${pattern}; got ${seen}`);
        }
        seen += value;
      }
    };
    // A hung kubectl must not hang the suite.
    const guard = setTimeout(() => child.kill(), 20_000);
    try {
      // The list comes first, then the watch: wait for the watch before changing things.
      await cluster.waitForRequest((r) => r.verb === "watch", { timeout: 20 });
      cluster.create({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "w1" },
        data: { v: "1" },
      });
      await until(/ADDED\s+w1\s+1/);
      cluster.patch("configmaps", "w1", { data: { v: "1", w: "2" } });
      await until(/MODIFIED\s+w1\s+2/);
      cluster.delete("configmaps", "w1");
      await until(/DELETED\s+w1/);
    } finally {
      clearTimeout(guard);
      child.kill();
      await lines.cancel();
      await child.status;
    }
  },
});

Deno.test({
  name: "kubectl: deleting a namespace removes its objects",
  ignore: !hasKubectl,
  async fn() {
    await using cluster = await FakeCluster.start();
    await using k = await Kubectl.for(cluster);
    await k.apply(CRD);
    await k.apply('{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team"}}');
    await k.apply(cm({ a: "1" }), ["-n", "team"]);
    await k.apply(example({}), ["-n", "team"]);
    assertEquals(cluster.list("kex", { namespace: "team" }).length, 1);
    assertStringIncludes((await k.run(["delete", "namespace", "team"])).out, "deleted");
    assertEquals(cluster.get("namespaces", "team"), undefined);
    assertEquals(cluster.list("configmaps", { namespace: "team" }), []);
    assertEquals(cluster.list("kex", { namespace: "team" }), []);
    assertStringIncludes((await k.run(["get", "ns"])).out, "default");
  },
});

Deno.test({
  name: "kubectl: the generators (create namespace, configmap, secret, serviceaccount) work",
  ignore: !hasKubectl,
  async fn() {
    await using cluster = await FakeCluster.start();
    await using k = await Kubectl.for(cluster);
    await k.run(["create", "namespace", "gen"]);
    await k.run([
      "create",
      "configmap",
      "c",
      "-n",
      "gen",
      "--from-literal=a=1",
      "--from-literal=b=2",
    ]);
    await k.run(["create", "secret", "generic", "s", "-n", "gen", "--from-literal=p=pw"]);
    await k.run(["create", "serviceaccount", "robot", "-n", "gen"]);
    assertEquals(cluster.get("namespaces", "gen")?.metadata?.labels, {
      "kubernetes.io/metadata.name": "gen",
    });
    assertEquals(cluster.get("configmaps", "c", { namespace: "gen" })?.data, { a: "1", b: "2" });
    assertEquals(cluster.get("secrets", "s", { namespace: "gen" })?.data, { p: btoa("pw") });
    assert(cluster.get("serviceaccounts", "robot", { namespace: "gen" }));
  },
});

Deno.test({
  name:
    "kubectl: the workload generators send protobuf: deployment, job (also from a cronjob), cronjob, service, role",
  ignore: !hasKubectl,
  async fn() {
    await using cluster = await FakeCluster.start();
    await using k = await Kubectl.for(cluster);
    await k.run(["create", "deployment", "web", "--image=nginx", "--replicas=2", "--port=80"]);
    const web = await k.json(["get", "deployment", "web"]);
    assertEquals(web.spec.replicas, 2);
    assertEquals(web.spec.selector, { matchLabels: { app: "web" } });
    assertEquals(web.spec.template.spec.containers, [
      {
        name: "nginx",
        image: "nginx",
        ports: [{ containerPort: 80, protocol: "TCP" }],
        resources: {},
        imagePullPolicy: "Always",
        terminationMessagePath: "/dev/termination-log",
        terminationMessagePolicy: "File",
      },
    ]);

    await k.run(["create", "job", "once", "--image=busybox", "--", "echo", "hi"]);
    const job = await k.json(["get", "job", "once"]);
    assertEquals(job.spec.template.spec.containers[0].command, ["echo", "hi"]);
    assertEquals(job.spec.template.spec.restartPolicy, "Never");

    await k.run(["create", "cronjob", "tick", "--image=busybox", "--schedule=*/5 * * * *"]);
    const cron = await k.json(["get", "cronjob", "tick"]);
    assertEquals(cron.spec.schedule, "*/5 * * * *");
    assertEquals(cron.spec.jobTemplate.spec.template.spec.restartPolicy, "OnFailure");
    await k.run(["create", "job", "manual", "--from=cronjob/tick"]);
    const manual = await k.json(["get", "job", "manual"]);
    assertEquals(manual.metadata.ownerReferences[0].name, "tick");
    assertEquals(manual.metadata.annotations, { "cronjob.kubernetes.io/instantiate": "manual" });

    await k.run(["create", "service", "clusterip", "web", "--tcp=80:8080"]);
    assertEquals((await k.json(["get", "service", "web"])).spec.ports, [
      { name: "80-8080", protocol: "TCP", port: 80, targetPort: 8080 },
    ]);
    await k.run(["create", "role", "reader", "--verb=get,list", "--resource=pods"]);
    await k.run(["create", "rolebinding", "readers", "--role=reader", "--user=me"]);
    assertEquals((await k.json(["get", "role", "reader"])).rules, [
      { verbs: ["get", "list"], apiGroups: [""], resources: ["pods"] },
    ]);
    assertEquals((await k.json(["get", "rolebinding", "readers"])).roleRef.name, "reader");
    assert(
      cluster.requests.some((r) => r.verb === "create" && r.path.endsWith("/deployments")),
    );
  },
});

Deno.test({
  name:
    "kubectl: OpenAPI — explain from v3 and v2; apply --validate=true patches with /openapi/v2's merge keys",
  ignore: !hasKubectl,
  async fn() {
    await using cluster = await FakeCluster.start();
    await using k = await Kubectl.for(cluster);
    const explained = (await k.run(["explain", "deployment.spec.template.spec.containers.ports"]))
      .out;
    assertStringIncludes(explained, "containerPort");
    const v2 =
      (await k.run(["explain", "deployment.spec.strategy", "--output=plaintext-openapiv2"]))
        .out;
    assertStringIncludes(v2, "rollingUpdate");
    const manifest = (env: Record<string, string>, image: string) =>
      JSON.stringify({
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "web" },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: "web" } },
          template: {
            metadata: { labels: { app: "web" } },
            spec: {
              containers: [{
                name: "nginx",
                image,
                env: Object.entries(env).map(([name, value]) => ({ name, value })),
              }],
            },
          },
        },
      });
    await k.apply(manifest({ A: "1", B: "2" }, "nginx"), ["--validate=true"]);
    // The second apply computes a strategic merge patch from the OpenAPI v2 definitions.
    const applied = await k.apply(manifest({ A: "1", C: "3" }, "nginx:1.27"), [
      "--validate=true",
      "-v=6",
    ]);
    assert(!/warning: error calculating patch/.test(applied.err), applied.err);
    assert(
      cluster.requests.some((r) => r.path === "/openapi/v2" && r.status === 200),
      "kubectl read /openapi/v2",
    );
    const web = await k.json(["get", "deployment", "web"]);
    assertEquals(web.spec.replicas, 2);
    assertEquals(web.spec.template.spec.containers[0].image, "nginx:1.27");
    assertEquals(web.spec.template.spec.containers[0].env, [
      { name: "A", value: "1" },
      { name: "C", value: "3" },
    ]);
  },
});

Deno.test({
  name: "kubectl: HTTPS with the generated CA, authenticated by token or by client certificate",
  ignore: !hasKubectl,
  async fn() {
    for (const options of [{ tls: true }, { tls: true, clientCertificates: true }]) {
      await using cluster = await FakeCluster.start(options);
      await using k = await Kubectl.for(cluster);
      assertStringIncludes((await k.run(["get", "namespaces"])).out, "kube-system");
      assert(cluster.requests.every((r) => r.status !== 401), "every request was authenticated");
    }
  },
});

Deno.test({
  name: "kubectl: scale a deployment through its scale subresource",
  ignore: !hasKubectl,
  async fn() {
    await using cluster = await FakeCluster.start();
    await using k = await Kubectl.for(cluster);
    await k.apply(
      JSON.stringify({
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "web" },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: "web" } },
          template: {
            metadata: { labels: { app: "web" } },
            spec: { containers: [{ name: "c", image: "nginx" }] },
          },
        },
      }),
    );
    assertStringIncludes(
      (await k.run(["scale", "deployment", "web", "--replicas=3"])).out,
      "scaled",
    );
    assertEquals(
      (cluster.get("deployments.apps", "web")?.spec as { replicas: number }).replicas,
      3,
    );
  },
});

Deno.test({
  name:
    "kubectl apply: an unknown field of a built-in fails strictly; --validate=warn and false drop it",
  ignore: !hasKubectl,
  async fn() {
    await using cluster = await FakeCluster.start();
    await using k = await Kubectl.for(cluster);
    const manifest = (name: string) =>
      JSON.stringify({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name },
        data: { a: "1" },
        status: { x: 1 },
      });
    // kubectl asks for fieldValidation=Strict by default, as against a real server.
    const strict = await k.apply(manifest("strict"), [], { allowFailure: true });
    assert(!strict.ok, "the default apply fails");
    assertStringIncludes(
      strict.err,
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "status"',
    );
    assertEquals(cluster.get("configmaps", "strict"), undefined);
    const warned = await k.apply(manifest("warned"), ["--validate=warn"]);
    assertStringIncludes(warned.err, 'Warning: unknown field "status"');
    const stored = cluster.get("configmaps", "warned")!;
    assertEquals([stored.status, stored.data], [undefined, { a: "1" }]);
    const silent = await k.apply(manifest("silent"), ["--validate=false"]);
    assertEquals(silent.err, "");
    assertEquals(cluster.get("configmaps", "silent")!.status, undefined);
    const serverSide = await k.apply(manifest("ssa"), ["--server-side"], { allowFailure: true });
    assertStringIncludes(
      serverSide.err,
      "failed to create typed patch object (default/ssa; /v1, Kind=ConfigMap): .status: field not declared in schema",
    );
  },
});
