/**
 * The webhooks of the managed configurations: one per handler, with its rules, policies,
 * object selector, a DNS name told apart from the names of ids that read alike, and the
 * handler id in the client config's path.
 */
import { PRESENT } from "../../src/structs/markers.ts";
import { Resource } from "../../src/structs/resources.ts";
import { matcherOf, OperatorRegistry } from "../../src/intents/registry.ts";
import { on } from "../../src/intents/registration.ts";
import type { WebhookHandler } from "../../src/intents/handlers.ts";
import {
  buildWebhooks,
  clientConfigFor,
  webhookName,
} from "../../src/engines/webhook_configurations.ts";
import { assert, assertEquals } from "../assert.ts";

const KEX = new Resource({
  group: "kopf.dev",
  version: "v1",
  plural: "kopfexamples",
  kind: "KopfExample",
  singular: "kopfexample",
  shortcuts: ["kex"],
});

function registry(): OperatorRegistry {
  return new OperatorRegistry({ onWarning: () => {} });
}

Deno.test("managed webhooks: one per handler with rules, policies, selectors and the id in the URL", () => {
  const r = registry();
  on.validate("kex", {
    registry: r,
    id: "check_Numbers",
    operation: ["CREATE", "UPDATE"],
    labels: { app: "x", tier: PRESENT, cb: () => true },
    ignoreFailures: true,
    sideEffects: true,
  }, () => {});
  on.validate(
    "kex",
    { registry: r, id: "status", subresource: "status", persistent: true },
    () => {},
  );
  const handlers = matcherOf(r).handlers as WebhookHandler[];
  const pods = new Resource({ group: "", version: "v1", plural: "pods", kind: "Pod" });
  const webhooks = buildWebhooks(handlers, {
    resources: [KEX, pods],
    suffix: "auto.kopf.dev",
    clientConfig: { url: "https://host:9443/hooks/", caBundle: "Q0E=" },
  });
  assertEquals(webhooks[0], {
    name: "check-numbers.auto.kopf.dev",
    sideEffects: "NoneOnDryRun",
    failurePolicy: "Ignore",
    matchPolicy: "Equivalent",
    rules: [{
      apiGroups: ["kopf.dev"],
      apiVersions: ["v1"],
      resources: ["kopfexamples"],
      operations: ["CREATE", "UPDATE"],
      scope: "*",
    }],
    objectSelector: {
      matchExpressions: [
        { key: "app", operator: "In", values: ["x"] },
        { key: "tier", operator: "Exists" },
      ],
    },
    clientConfig: { url: "https://host:9443/hooks/check_Numbers", caBundle: "Q0E=" },
    timeoutSeconds: 30,
    admissionReviewVersions: ["v1"],
  });
  assertEquals(webhooks[1].sideEffects, "None");
  assertEquals(webhooks[1].failurePolicy, "Fail");
  assertEquals((webhooks[1].rules as { resources: string[] }[])[0].resources, [
    "kopfexamples/status",
  ]);
  assertEquals((webhooks[1].rules as { operations: string[] }[])[0].operations, ["*"]);
  const persistent = buildWebhooks(handlers, {
    resources: [KEX],
    suffix: "auto.kopf.dev",
    clientConfig: { url: "https://host" },
    persistentOnly: true,
  });
  assertEquals(persistent.map((w) => w.name), ["status.auto.kopf.dev"]);
});

Deno.test("a handler of any subresource gets the main body too: plural/* alone matches only subresources", () => {
  const r = registry();
  on.validate("kex", { registry: r, id: "any", subresource: "*" }, () => {});
  const [webhook] = buildWebhooks(matcherOf(r).handlers as WebhookHandler[], {
    resources: [KEX],
    suffix: "auto.kopf.dev",
    clientConfig: { url: "https://host" },
  });
  assertEquals((webhook.rules as { resources: string[] }[])[0].resources, [
    "kopfexamples",
    "kopfexamples/*",
  ]);
});

Deno.test("handler ids that read alike get distinct webhook names, the same at every start", () => {
  const r = registry();
  for (const id of ["check_a", "check-a", "Check-A"]) {
    on.validate("kex", { registry: r, id }, () => {});
  }
  const build = (persistentOnly: boolean) =>
    buildWebhooks(matcherOf(r).handlers as WebhookHandler[], {
      resources: [KEX],
      suffix: "auto.kopf.dev",
      clientConfig: { url: "https://host" },
      persistentOnly,
    }).map((w) => w.name as string);
  const names = build(false);
  assertEquals(names[0], "check-a.auto.kopf.dev");
  assertEquals(new Set(names).size, 3, names.join(", "));
  assertEquals(build(false), names);
});

Deno.test("webhook names are DNS names; service paths get the id too", () => {
  assertEquals(webhookName("check/sub", "auto.kopf.dev"), "check-sub.auto.kopf.dev");
  assertEquals(webhookName("__x__", "a.b"), "x.a.b");
  // Every label of the name starts and ends with a letter or digit, even when cut short.
  const dns = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
  for (const id of ["x_.y", "Fn..x", "a._b", `${"a".repeat(238)}_b`, `${"a".repeat(239)}.b`]) {
    const name = webhookName(id, "auto.kopf.dev");
    assert(dns.test(name) && name.length <= 253, `${name} is not a DNS subdomain`);
  }
  assertEquals(webhookName("x_.y", "auto.kopf.dev"), "x.y.auto.kopf.dev");
  assertEquals(
    clientConfigFor({ service: { namespace: "ns", name: "svc", path: "/p/" } }, "id1"),
    { service: { namespace: "ns", name: "svc", path: "/p/id1" } },
  );
});
