/**
 * The protobuf request decoder: bodies kubectl sent (captured from kubectl 1.32's
 * generators) and bodies built by hand with the field numbers of Kubernetes'
 * generated.proto decode into the JSON the API server would store.
 */
import { decodeProtobuf } from "../../../src/testing/fake_cluster/protobuf.ts";
import { ProtobufWriter } from "../../../src/testing/fake_cluster/protobuf_wire.ts";
import { ApiError } from "../../../src/testing/fake_cluster/errors.ts";
import { assertEquals, assertStringIncludes, assertThrows } from "../../assert.ts";

const fromBase64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

/** `kubectl create deployment web --image=nginx --replicas=2 --port=80`. */
const KUBECTL_DEPLOYMENT =
  "azhzAAoVCgdhcHBzL3YxEgpEZXBsb3ltZW50ErgBCh8KA3dlYhIAGgAiACoAMgA4AEIAWgoKA2FwcBIDd2ViEoYBCAIS" +
  "DAoKCgNhcHASA3dlYhpsChwKABIAGgAiACoAMgA4AEIAWgoKA2FwcBIDd2ViEkwSLgoFbmdpbngSBW5naW54KgAyCgoA" +
  "EAAYUCIAKgBCAGoAcgCAAQCIAQCQAQCiAQAaADIAQgBKAFIAWABgAGgAggEAigEAmgEAwgEAIgIKACgAOAAaDAgAEAAY" +
  "ACAAKAA4ABoAIgA=";
/** `kubectl create job j --image=busybox -- echo hi`. */
const KUBECTL_JOB =
  "azhzAAoPCghiYXRjaC92MRIDSm9iEoIBChEKAWoSABoAIgAqADIAOABCABJjMmEKEAoAEgAaACIAKgAyADgAQgASTRIq" +
  "CgFqEgdidXN5Ym94GgRlY2hvGgJoaSoAQgBqAHIAgAEAiAEAkAEAogEAGgVOZXZlcjIAQgBKAFIAWABgAGgAggEAigEA" +
  "mgEAwgEAGgggACgAMAA6ABoAIgA=";
/** `kubectl create cronjob c --image=busybox --schedule="*\/5 * * * *" -- date`. */
const KUBECTL_CRONJOB =
  "azhzAAoTCghiYXRjaC92MRIHQ3JvbkpvYhKhAQoRCgFjEgAaACIAKgAyADgAQgASiQEKCyovNSAqICogKiAqGgAqeAoR" +
  "CgFjEgAaACIAKgAyADgAQgASYzJhChAKABIAGgAiACoAMgA4AEIAEk0SJgoBYxIHYnVzeWJveBoEZGF0ZSoAQgBqAHIA" +
  "gAEAiAEAkAEAogEAGglPbkZhaWx1cmUyAEIASgBSAFgAYABoAIIBAIoBAJoBAMIBABoAGgAiAA==";
/** `kubectl create service clusterip s --tcp=80:8080`. */
const KUBECTL_SERVICE =
  "azhzAAoNCgJ2MRIHU2VydmljZRJjChsKAXMSABoAIgAqADIAOABCAFoICgNhcHASAXMSQAobCgc4MC04MDgwEgNUQ1AY" +
  "UCIHCAAQkD8aACgAEggKA2FwcBIBcxoAIglDbHVzdGVySVA6AEIAUgBaAGAAaAAaAgoAGgAiAA==";
/** `kubectl create rolebinding rb --role=r --user=me`. */
const KUBECTL_ROLEBINDING =
  "azhzAAorChxyYmFjLmF1dGhvcml6YXRpb24uazhzLmlvL3YxEgtSb2xlQmluZGluZxJjChIKAnJiEgAaACIAKgAyADgA" +
  "QgASJwoEVXNlchIZcmJhYy5hdXRob3JpemF0aW9uLms4cy5pbxoCbWUiABokChlyYmFjLmF1dGhvcml6YXRpb24uazhz" +
  "LmlvEgRSb2xlGgFyGgAiAA==";

Deno.test("protobuf: the bodies kubectl's generators send decode as kubectl's own JSON", () => {
  // The expected objects are what `kubectl create … --dry-run=client -o json` prints.
  assertEquals(decodeProtobuf(fromBase64(KUBECTL_DEPLOYMENT)), {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", creationTimestamp: null, labels: { app: "web" } },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: "web" } },
      template: {
        metadata: { creationTimestamp: null, labels: { app: "web" } },
        spec: {
          containers: [{
            name: "nginx",
            image: "nginx",
            ports: [{ containerPort: 80 }],
            resources: {},
          }],
        },
      },
      strategy: {},
    },
    status: {},
  });
  const podSpec = (name: string, command: string[], restartPolicy: string) => ({
    metadata: { creationTimestamp: null },
    spec: {
      containers: [{ name, image: "busybox", command, resources: {} }],
      restartPolicy,
    },
  });
  assertEquals(decodeProtobuf(fromBase64(KUBECTL_JOB)), {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: "j", creationTimestamp: null },
    spec: { template: podSpec("j", ["echo", "hi"], "Never") },
    status: {},
  });
  assertEquals(decodeProtobuf(fromBase64(KUBECTL_CRONJOB)), {
    apiVersion: "batch/v1",
    kind: "CronJob",
    metadata: { name: "c", creationTimestamp: null },
    spec: {
      schedule: "*/5 * * * *",
      jobTemplate: {
        metadata: { name: "c", creationTimestamp: null },
        spec: { template: podSpec("c", ["date"], "OnFailure") },
      },
    },
    status: {},
  });
  assertEquals(decodeProtobuf(fromBase64(KUBECTL_SERVICE)), {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "s", creationTimestamp: null, labels: { app: "s" } },
    spec: {
      ports: [{ name: "80-8080", protocol: "TCP", port: 80, targetPort: 8080 }],
      selector: { app: "s" },
      type: "ClusterIP",
    },
    status: { loadBalancer: {} },
  });
  assertEquals(decodeProtobuf(fromBase64(KUBECTL_ROLEBINDING)), {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "RoleBinding",
    metadata: { name: "rb", creationTimestamp: null },
    subjects: [{ kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "me" }],
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "r" },
  });
});

// --- hand-built bodies: field numbers from Kubernetes' generated.proto ---

const W = () => new ProtobufWriter();
const entry = (key: string, value: string) => W().string(1, key).string(2, value);
const quantityEntry = (key: string, value: string) =>
  W().string(1, key).message(2, W().string(1, value));
const intOrString = (value: number | string) =>
  typeof value === "number" ? W().int(1, 0).int(2, value) : W().int(1, 1).string(3, value);
const meta = (name: string) => W().string(1, name).string(2, "").string(3, "").int(7, 0);
const selector = (key: string, value: string) => W().message(1, entry(key, value));

function envelope(apiVersion: string, kind: string, raw: ProtobufWriter): Uint8Array {
  const body = W()
    .message(1, W().string(1, apiVersion).string(2, kind))
    .message(2, raw)
    .string(3, "")
    .string(4, "")
    .finish();
  return new Uint8Array([0x6b, 0x38, 0x73, 0x00, ...body]);
}

/** A pod template: core/v1 PodTemplateSpec { metadata = 1, spec = 2 }. */
function template(container: ProtobufWriter, spec = W()): ProtobufWriter {
  return W()
    .message(1, W().message(11, entry("app", "x")))
    .message(2, spec.message(2, container));
}

Deno.test("protobuf: a StatefulSet keeps pointer zeros, int-or-strings and claim templates", () => {
  const container = W().string(1, "db").string(2, "postgres:16").string(5, "").bool(16, false);
  const claim = W()
    .message(1, meta("data"))
    .message(
      2,
      W().string(1, "ReadWriteOnce")
        .message(2, W().message(2, quantityEntry("storage", "1Gi")))
        .string(5, "fast"),
    );
  const spec = W()
    .int(1, 0) // replicas: a *int32, so an explicit zero is kept
    .message(2, selector("app", "x"))
    .message(3, template(container))
    .message(4, claim)
    .string(5, "db")
    .string(6, "Parallel")
    .message(
      7,
      W().string(1, "RollingUpdate").message(2, W().int(1, 0).message(2, intOrString("50%"))),
    )
    .int(9, 0) // minReadySeconds: a plain int32, so zero is omitted
    .message(10, W().string(1, "Delete").string(2, "Retain"));
  const body = envelope(
    "apps/v1",
    "StatefulSet",
    W().message(1, meta("db")).message(2, spec).message(3, W().int(1, 0).int(2, 0)),
  );
  assertEquals(decodeProtobuf(body), {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name: "db" },
    spec: {
      replicas: 0,
      selector: { matchLabels: { app: "x" } },
      template: {
        metadata: { labels: { app: "x" } },
        spec: { containers: [{ name: "db", image: "postgres:16" }] },
      },
      volumeClaimTemplates: [{
        metadata: { name: "data" },
        spec: {
          accessModes: ["ReadWriteOnce"],
          resources: { requests: { storage: "1Gi" } },
          storageClassName: "fast",
        },
      }],
      serviceName: "db",
      podManagementPolicy: "Parallel",
      updateStrategy: {
        type: "RollingUpdate",
        rollingUpdate: { partition: 0, maxUnavailable: "50%" },
      },
      persistentVolumeClaimRetentionPolicy: { whenDeleted: "Delete", whenScaled: "Retain" },
    },
    status: {},
  });
});

Deno.test("protobuf: a DaemonSet's probes, env sources, volumes and security context", () => {
  const probe = W()
    .message(1, W().message(2, W().string(1, "/healthz").message(2, intOrString("http"))))
    .int(2, 5)
    .int(7, 0); // terminationGracePeriodSeconds: a *int64
  const container = W()
    .string(1, "agent")
    .string(2, "agent:1")
    .message(6, W().string(1, "http").int(3, 8080).string(4, "TCP"))
    .message(
      7,
      W().string(1, "TOKEN").message(
        3,
        W().message(4, W().message(1, W().string(1, "creds")).string(2, "token").bool(3, true)),
      ),
    )
    .message(9, W().string(1, "config").bool(2, true).string(3, "/etc/agent"))
    .message(10, probe)
    .message(11, W().message(1, W().message(3, W().message(1, intOrString(8080)))))
    .message(15, W().bool(5, false).message(1, W().string(1, "NET_ADMIN")));
  const podSpec = W()
    .message(
      1,
      W().string(1, "config").message(
        2,
        W().message(19, W().message(1, W().string(1, "agent-config")).int(3, 420)),
      ),
    )
    .int(25, -5) // priority: negative numbers travel as ten-byte varints
    .message(22, W().string(1, "node-role").string(2, "Exists").string(4, "NoSchedule"));
  const spec = W()
    .message(1, selector("app", "x"))
    .message(2, template(container, podSpec))
    .message(3, W().string(1, "RollingUpdate").message(2, W().message(1, intOrString(1))))
    .int(6, 3);
  const body = envelope("apps/v1", "DaemonSet", W().message(1, meta("agent")).message(2, spec));
  assertEquals(decodeProtobuf(body).spec as Record<string, unknown>, {
    selector: { matchLabels: { app: "x" } },
    template: {
      metadata: { labels: { app: "x" } },
      spec: {
        volumes: [{ name: "config", configMap: { name: "agent-config", defaultMode: 420 } }],
        containers: [{
          name: "agent",
          image: "agent:1",
          ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }],
          env: [{
            name: "TOKEN",
            valueFrom: { secretKeyRef: { name: "creds", key: "token", optional: true } },
          }],
          volumeMounts: [{ name: "config", readOnly: true, mountPath: "/etc/agent" }],
          livenessProbe: {
            httpGet: { path: "/healthz", port: "http" },
            initialDelaySeconds: 5,
            terminationGracePeriodSeconds: 0,
          },
          readinessProbe: { tcpSocket: { port: 8080 } },
          securityContext: { runAsNonRoot: false, capabilities: { add: ["NET_ADMIN"] } },
        }],
        priority: -5,
        tolerations: [{ key: "node-role", operator: "Exists", effect: "NoSchedule" }],
      },
    },
    updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1 } },
    revisionHistoryLimit: 3,
  });
});

Deno.test("protobuf: a ReplicaSet's timestamps, owner references and status conditions", () => {
  const time = (seconds: number) => W().int(1, seconds).int(2, 0);
  const metadata = meta("web-1")
    .message(8, time(1_700_000_000))
    .message(
      13,
      W().string(5, "apps/v1").string(1, "Deployment").string(3, "web").string(4, "u1").bool(
        6,
        true,
      ),
    )
    .string(14, "example.com/guard");
  const status = W()
    .int(1, 2)
    .int(3, 5)
    .message(6, W().string(1, "ReplicaFailure").string(2, "False").message(3, time(1_700_000_060)));
  const body = envelope(
    "apps/v1",
    "ReplicaSet",
    W().message(1, metadata).message(2, W().int(1, 2).message(2, selector("app", "web"))).message(
      3,
      status,
    ),
  );
  assertEquals(decodeProtobuf(body), {
    apiVersion: "apps/v1",
    kind: "ReplicaSet",
    metadata: {
      name: "web-1",
      creationTimestamp: "2023-11-14T22:13:20Z",
      ownerReferences: [{
        apiVersion: "apps/v1",
        kind: "Deployment",
        name: "web",
        uid: "u1",
        controller: true,
      }],
      finalizers: ["example.com/guard"],
    },
    spec: { replicas: 2, selector: { matchLabels: { app: "web" } } },
    status: {
      replicas: 2,
      observedGeneration: 5,
      conditions: [{
        type: "ReplicaFailure",
        status: "False",
        lastTransitionTime: "2023-11-14T22:14:20Z",
      }],
    },
  });
});

Deno.test("protobuf: a Pod's quantities, packed numbers and downward API divisor", () => {
  const resources = W()
    .message(1, quantityEntry("cpu", "500m"))
    .message(1, quantityEntry("memory", "128Mi"))
    .message(2, quantityEntry("cpu", "250m"));
  const divisor = W().string(1, "MEMORY").message(
    3,
    W().message(2, W().string(2, "limits.memory").message(3, W().string(1, "1Mi"))),
  );
  const container = W().string(1, "app").string(2, "app:1").message(7, divisor).message(
    8,
    resources,
  );
  // supplementalGroups as a packed list: the varints of 1000 and 2000 in one chunk.
  const groups = new Uint8Array([0xe8, 0x07, 0xd0, 0x0f]);
  const podSpec = W().message(2, container).message(14, W().bytes(4, groups).int(5, 3000));
  const body = envelope("v1", "Pod", W().message(1, meta("p")).message(2, podSpec));
  assertEquals(decodeProtobuf(body).spec, {
    containers: [{
      name: "app",
      image: "app:1",
      env: [{
        name: "MEMORY",
        valueFrom: { resourceFieldRef: { resource: "limits.memory", divisor: "1Mi" } },
      }],
      resources: { limits: { cpu: "500m", memory: "128Mi" }, requests: { cpu: "250m" } },
    }],
    securityContext: { supplementalGroups: [1000, 2000], fsGroup: 3000 },
  });
});

Deno.test("protobuf: the core kinds it knew before — ConfigMap, Secret, Namespace, ServiceAccount — and Event", () => {
  const cm = envelope(
    "v1",
    "ConfigMap",
    W().message(1, meta("cm")).message(2, entry("a", "1")).message(
      3,
      W().string(1, "blob").bytes(2, new Uint8Array([0, 255, 1])),
    ),
  );
  assertEquals(decodeProtobuf(cm), {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "cm" },
    data: { a: "1" },
    binaryData: { blob: "AP8B" },
  });
  const event = envelope(
    "v1",
    "Event",
    W().message(1, meta("e"))
      .message(2, W().string(1, "Pod").string(3, "p"))
      .string(3, "Started")
      .message(10, W().int(1, 1_700_000_000).int(2, 123_456_789))
      .string(14, "")
      .string(15, ""),
  );
  assertEquals(decodeProtobuf(event), {
    apiVersion: "v1",
    kind: "Event",
    metadata: { name: "e" },
    involvedObject: { kind: "Pod", name: "p" },
    reason: "Started",
    eventTime: "2023-11-14T22:13:20.123456Z",
    reportingComponent: "",
    reportingInstance: "",
  });
  // `kubectl create secret generic sec --from-literal=a=b`, as kubectl sent it.
  const secret = fromBase64(
    "azhzAAoMCgJ2MRIGU2VjcmV0Eh8KEwoDc2VjEgAaACIAKgAyADgAQgASBgoBYRIBYhoAGgAiAA==",
  );
  assertEquals(decodeProtobuf(secret), {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "sec", creationTimestamp: null },
    data: { a: "Yg==" },
  });
  const typed = envelope(
    "v1",
    "Secret",
    W().message(1, meta("tls")).message(4, entry("user", "admin")).string(3, "kubernetes.io/tls")
      .bool(5, true),
  );
  assertEquals(decodeProtobuf(typed), {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "tls" },
    stringData: { user: "admin" },
    type: "kubernetes.io/tls",
    immutable: true,
  });
  const namespace = envelope(
    "v1",
    "Namespace",
    W().message(1, meta("team").message(11, entry("tier", "gold")))
      .message(2, W().string(1, "kubernetes"))
      .message(3, W().string(1, "")),
  );
  assertEquals(decodeProtobuf(namespace), {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: "team", labels: { tier: "gold" } },
    spec: { finalizers: ["kubernetes"] },
    status: {},
  });
  const sa = envelope(
    "v1",
    "ServiceAccount",
    W().message(1, meta("sa")).message(3, W().string(1, "pull")).bool(4, false),
  );
  assertEquals(decodeProtobuf(sa), {
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: { name: "sa" },
    imagePullSecrets: [{ name: "pull" }],
    automountServiceAccountToken: false,
  });
});

Deno.test("protobuf: what it cannot read is refused with one clear line, never dropped", () => {
  const refused = (body: Uint8Array) => assertThrows(() => decodeProtobuf(body), ApiError);
  const unknownKind = refused(envelope("kopf.dev/v1", "KopfExample", W().message(1, meta("x"))));
  assertEquals(unknownKind.code, 415);
  assertStringIncludes(unknownKind.message, "kopf.dev/v1 KopfExample");
  assertStringIncludes(unknownKind.message, "application/json");

  const noPrefix = refused(new TextEncoder().encode('{"kind":"ConfigMap"}'));
  assertEquals(noPrefix.code, 400);
  assertStringIncludes(noPrefix.message, "k8s");

  const whole = envelope("v1", "ConfigMap", W().message(1, meta("cm")).message(2, entry("a", "1")));
  const truncated = refused(whole.subarray(0, whole.length - 3));
  assertEquals(truncated.code, 400);
  assertStringIncludes(truncated.message, "malformed");

  // A field the tables lack: ignored while zero (Go writes every plain field), refused when set.
  const zero = envelope("v1", "ConfigMap", W().message(1, meta("cm").string(99, "")));
  assertEquals(decodeProtobuf(zero).metadata, { name: "cm" });
  const set = refused(
    envelope(
      "apps/v1",
      "Deployment",
      W().message(2, W().message(3, W().message(2, W().string(99, "x")))),
    ),
  );
  assertEquals(set.code, 415);
  assertStringIncludes(
    set.message,
    "field 99 of io.k8s.api.core.v1.PodSpec (at spec.template.spec)",
  );

  const wrongWire = refused(envelope("v1", "ConfigMap", W().message(1, W().int(1, 5))));
  assertEquals(wrongWire.code, 400);
  assertStringIncludes(wrongWire.message, "metadata.name");
});
