/**
 * When the operator cannot work, it says so at once, at the default log level, in one line
 * that names the server and the reason — and, where it cannot go on, ends with that line
 * and a non-zero exit code. Each scenario runs `kopf run` as a user would, in a process.
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../assert.ts";
import { FakeCluster } from "../../src/testing/mod.ts";
import { type Spawned, spawnKopf, terminate } from "../commands/kopf_process.ts";
import { patternOf, quote } from "../doc_quotes.ts";

const EXAMPLE = new URL("../../examples/01-minimal/example.ts", import.meta.url).pathname;
const CRD = new URL("../../examples/crd.yaml", import.meta.url);

/** A kubeconfig with one context `ctx` (user `u`) for the server, with a token if given. */
async function kubeconfig(
  server: string,
  extra: { token?: string; ca?: string; path?: string; context?: string; user?: string } = {},
) {
  const path = extra.path ?? `${await Deno.makeTempDir()}/config`;
  const [context, user] = [extra.context ?? "ctx", extra.user ?? "u"];
  const cluster = extra.ca === undefined
    ? `{ server: "${server}" }`
    : `{ server: "${server}", certificate-authority-data: "${btoa(extra.ca)}" }`;
  await Deno.writeTextFile(
    path,
    `apiVersion: v1
kind: Config
clusters: [{ name: c, cluster: ${cluster} }]
users: [{ name: ${user}, user: { token: "${extra.token ?? "a-token"}" } }]
contexts: [{ name: ${context}, context: { cluster: c, user: ${user} } }]
current-context: ${context}
`,
  );
  return path;
}

/** A port where nothing listens. */
function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** Seconds between the line saying what is served (just before the first request) and `line`. */
function secondsAfterServing(kopf: Spawned, line: string): number {
  const stamp = (text: string) => {
    const m = text.match(/^\[(\d+)-(\d+)-(\d+) (\d+):(\d+):(\d+),(\d+)\]/);
    assert(m, `no timestamp in ${text}`);
    const [, y, mo, d, h, mi, s, ms] = m.map(Number);
    return new Date(y, mo - 1, d, h, mi, s, ms).getTime() / 1000;
  };
  const serving = kopf.stderrLines.find((l) => l.includes("Serving the whole cluster at"));
  assert(serving, kopf.stderrLines.join("\n"));
  return stamp(line) - stamp(serving);
}

Deno.test("an API server that refuses connections is named with the reason within seconds", async () => {
  const server = `http://127.0.0.1:${closedPort()}`;
  const config = await kubeconfig(server);
  const kopf = spawnKopf(["run", "-A", EXAMPLE], { KUBECONFIG: config });
  const serving = await kopf.waitForLine("Serving the whole cluster at");
  assertStringIncludes(serving, `INFO`);
  assertStringIncludes(serving, `at ${server} (the context "ctx" (user "u") of ${config})`);
  const line = await kopf.waitForLine(`The API server ${server} failed`);
  assertMatch(line, /WARNING/);
  // The reason as docs/errors-and-retries.md quotes it.
  assertMatch(line, patternOf(await quote("errors-and-retries.md", "cannot connect: ")));
  assertStringIncludes(line, "and keeps trying");
  assert(secondsAfterServing(kopf, line) < 5, "said within 5 s of the first attempt");
  const { stderr } = await terminate(kopf);
  assertEquals(stderr.split("\n").filter((l) => l.includes(`${server} failed:`)).length, 1);
  assert(!stderr.includes("a-token"), "no token in the logs");
});

Deno.test("an API server answering 503 is named with the status; a name that does not resolve too", async () => {
  await using cluster = await FakeCluster.start();
  cluster.faults.failRequests({ share: 1, status: 503 });
  const kopf = spawnKopf(["run", "-A", EXAMPLE], { KUBECONFIG: await cluster.writeKubeconfig() });
  const line = await kopf.waitForLine(`The API server ${cluster.url} failed`);
  assertMatch(line, /WARNING .*failed: HTTP 503: .*; retrying in [\d.]+s, and keeps trying\./);
  assertMatch(line, patternOf(await quote("errors-and-retries.md", "HTTP 503: ")));
  assert(secondsAfterServing(kopf, line) < 5);
  await terminate(kopf);

  const nowhere = "http://kopf-nowhere.invalid:6443";
  const lost = spawnKopf(["run", "-A", EXAMPLE], { KUBECONFIG: await kubeconfig(nowhere) });
  assertMatch(await lost.waitForLine(`The API server ${nowhere} failed`), /cannot connect: /);
  await terminate(lost);
});

Deno.test("the start names the server and the context, user and file of the home's kubeconfig", async () => {
  await using cluster = await FakeCluster.start({ tls: true });
  const home = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${home}/.kube`);
    await kubeconfig(cluster.url, {
      path: `${home}/.kube/config`,
      token: cluster.token,
      ca: cluster.caCertificate,
      context: "dev",
      user: "alice",
    });
    const kopf = spawnKopf(["run", "-A", EXAMPLE], { HOME: home });
    const serving = await kopf.waitForLine("Serving the whole cluster at");
    await terminate(kopf);
    // As docs/errors-and-retries.md quotes it, of a home at /home/me.
    const quoted = await quote("errors-and-retries.md", "Serving the whole cluster at ");
    assertMatch(serving, patternOf(quoted.replace("/home/me/", `${home}/`)));
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("refused credentials name the context and user, never the token, and end the start", async () => {
  await using cluster = await FakeCluster.start({ token: "the-right-one" });
  const config = await kubeconfig(cluster.url, { token: "a-stale-one" });
  const kopf = spawnKopf(["run", "-A", EXAMPLE], { KUBECONFIG: config });
  const { code, stderr } = await kopf.finished;
  assertEquals(code, 1);
  const last = stderr.trim().split("\n").at(-1)!;
  assertStringIncludes(last, "The operator has failed: The API server");
  assertStringIncludes(
    last,
    `refused the credentials of the context "ctx" (user "u") of ${config}`,
  );
  assertStringIncludes(last, "renew them");
  assert(!stderr.includes("a-stale-one") && !stderr.includes("the-right-one"), "no tokens");
});

Deno.test("a certificate that cannot be verified ends the start with one line saying what to set", async () => {
  await using cluster = await FakeCluster.start({ tls: true });
  const stranger = await FakeCluster.start({ tls: true }); // another CA
  const wrongCa = stranger.caCertificate!;
  await stranger.stop();
  const config = await kubeconfig(cluster.url, { token: "t", ca: wrongCa });
  const { code, stderr } = await spawnKopf(["run", "-A", EXAMPLE], { KUBECONFIG: config })
    .finished;
  assertEquals(code, 1);
  const last = stderr.trim().split("\n").at(-1)!;
  assertMatch(last, /The operator has failed: Cannot verify the certificate of https:/);
  assertStringIncludes(last, "set the right CA");
  assertEquals(stderr.includes("    at "), false, "no stack trace at the default level");
});

Deno.test("a refused list names the resource, the verbs and where, and the RBAC rule to add", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(
    (await import("yaml")).parse(await Deno.readTextFile(CRD)) as Record<string, never>,
  );
  cluster.faults.failRequests({ share: 1, status: 403, resources: ["kopfexamples"] });
  const kopf = spawnKopf(["run", "-A", EXAMPLE], { KUBECONFIG: await cluster.writeKubeconfig() });
  const line = await kopf.waitForLine("no permission to list and watch kopfexamples");
  assertMatch(line, /WARNING/);
  assertStringIncludes(line, "cluster-wide");
  assertStringIncludes(
    line,
    'a ClusterRole with the rule { apiGroups: ["kopf.dev"], resources: ["kopfexamples"], ' +
      'verbs: ["list", "watch", "patch"] }',
  );
  await terminate(kopf);
});
