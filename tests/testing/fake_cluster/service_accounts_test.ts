/**
 * Service-account tokens: TokenRequests over HTTP, the test API's tokens, and the token
 * controller's legacy Secrets; each token authenticates as its account while it exists.
 */
import { FakeCluster } from "../../../src/testing/mod.ts";
import { assert, assertEquals, assertMatch, assertThrows } from "../../assert.ts";
import { call } from "./helpers.ts";

const SA = "/api/v1/namespaces/default/serviceaccounts";

async function whoami(cluster: FakeCluster, token: string) {
  const reply = await call(
    cluster,
    "POST",
    "/apis/authentication.k8s.io/v1/selfsubjectreviews",
    { spec: {} },
    { authorization: `Bearer ${token}` },
  );
  return reply.status === 201 ? reply.body.status.userInfo : reply.status;
}

Deno.test("tokens: a TokenRequest returns a token of the service account, with its expiry", async () => {
  await using cluster = await FakeCluster.start({ rbac: true });
  const account = cluster.create({
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: { name: "op", namespace: "default" },
  });
  const before = Date.now();
  const reply = await call(cluster, "POST", `${SA}/op/token`, {
    apiVersion: "authentication.k8s.io/v1",
    kind: "TokenRequest",
    spec: { expirationSeconds: 1200 },
  });
  assertEquals(reply.status, 201);
  assertEquals(reply.body.kind, "TokenRequest");
  assertEquals(reply.body.spec.expirationSeconds, 1200);
  assertEquals(reply.body.spec.audiences, ["https://kubernetes.default.svc.cluster.local"]);
  const expires = Date.parse(reply.body.status.expirationTimestamp);
  assert(expires >= before + 1_199_000 && expires <= Date.now() + 1_200_000, "in 20 minutes");
  assertMatch(reply.body.status.token, /^[\w-]+\.[\w-]+\.[\w-]+$/);
  assertEquals(await whoami(cluster, reply.body.status.token), {
    username: "system:serviceaccount:default:op",
    uid: account.metadata!.uid,
    groups: ["system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"],
  });
  // Deleting the account invalidates its tokens: the API answers 401.
  cluster.delete("serviceaccounts", "op");
  assertEquals(await whoami(cluster, reply.body.status.token), 401);
});

Deno.test("tokens: TokenRequests are refused for missing accounts and too short lives", async () => {
  await using cluster = await FakeCluster.start({ rbac: true });
  const missing = await call(cluster, "POST", `${SA}/ghost/token`, { spec: {} });
  assertEquals([missing.status, missing.body.message], [404, 'serviceaccounts "ghost" not found']);
  cluster.create({ apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "op" } });
  const short = await call(cluster, "POST", `${SA}/op/token`, { spec: { expirationSeconds: 60 } });
  assertEquals(short.status, 422);
  assertEquals(
    short.body.message,
    'TokenRequest.authentication.k8s.io "op" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes',
  );
  const get = await call(cluster, "GET", `${SA}/op/token`);
  assertEquals(get.status, 405);
  // Tokens meant for another audience do not authenticate to the API server.
  const other = await call(cluster, "POST", `${SA}/op/token`, { spec: { audiences: ["vault"] } });
  assertEquals(await whoami(cluster, other.body.status.token), 401);
});

Deno.test("tokens: the test API's tokens: any user and groups, or a service account", async () => {
  await using cluster = await FakeCluster.start({ rbac: true });
  const token = cluster.tokenFor({ user: "alice", groups: ["devs"] });
  assertEquals(await whoami(cluster, token), {
    username: "alice",
    groups: ["devs", "system:authenticated"],
  });
  const error = assertThrows(() => cluster.serviceAccountToken("default", "op"));
  assertMatch(error.message, /serviceaccounts "op" not found .*create it first/);
  cluster.create({ apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "op" } });
  const sa = cluster.serviceAccountToken("default", "op");
  assertEquals((await whoami(cluster, sa)).username, "system:serviceaccount:default:op");
  assertEquals(await whoami(cluster, "not-a-token"), 401);
});

Deno.test("tokens: the token controller fills service-account token Secrets, and removes them with the account", async () => {
  await using cluster = await FakeCluster.start({ rbac: true });
  const secret = (name: string, account: string) => ({
    apiVersion: "v1",
    kind: "Secret",
    type: "kubernetes.io/service-account-token",
    metadata: { name, annotations: { "kubernetes.io/service-account.name": account } },
  });
  const early = await call(
    cluster,
    "POST",
    "/api/v1/namespaces/default/secrets",
    secret("early", "op"),
  );
  assertEquals(early.status, 201);
  assertEquals(cluster.get("secrets", "early")?.data, undefined, "no account yet: no token");
  const account = cluster.create({
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: { name: "op" },
  });
  const filled = cluster.get("secrets", "early")!;
  const data = filled.data as Record<string, string>;
  assertEquals(
    filled.metadata?.annotations?.["kubernetes.io/service-account.uid"],
    account.metadata!.uid,
  );
  assertEquals(atob(data.namespace), "default");
  assertEquals(data["ca.crt"], undefined, "no CA over plain HTTP");
  const token = atob(data.token);
  assertEquals((await whoami(cluster, token)).username, "system:serviceaccount:default:op");
  cluster.create(secret("late", "op"));
  assert(
    (cluster.get("secrets", "late")?.data as Record<string, string>).token,
    "filled at once for an existing account",
  );
  cluster.delete("serviceaccounts", "op");
  assertEquals(cluster.get("secrets", "early"), undefined);
  assertEquals(cluster.get("secrets", "late"), undefined);
  assertEquals(await whoami(cluster, token), 401);
});
