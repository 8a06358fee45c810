/**
 * What the simulated network answers in place of the server, checked against the shapes
 * kube-apiserver gives them: a 429 of API Priority and Fairness, a 410 on a resumed watch
 * (an ERROR event in a 200 stream, as the watch cache sends it), a conflict only for
 * writes held to a resourceVersion, made by another writer's real change; a crash right after a write landed, and a cut link.
 */
import { assert, assertEquals, assertRejects } from "../../assert.ts";
import { OperatorLink } from "../../../src/testing/simulation/operator_link.ts";
import { SimulatedNetwork } from "../../../src/testing/simulation/network.ts";
import { SeededRandom } from "../../../src/testing/simulation/seeded_random.ts";
import { Trace } from "../../../src/testing/simulation/trace.ts";
import { VirtualTime } from "../../../src/testing/simulation/virtual_time.ts";
import {
  faultWeights,
  type SimulationFaults,
} from "../../../src/testing/simulation/simulation_faults.ts";

const NONE: SimulationFaults = faultsOff();

function faultsOff(): SimulationFaults {
  const off: Record<string, boolean> = {};
  for (const name of Object.keys(faultWeights(undefined))) off[name] = false;
  return off as SimulationFaults;
}

/** A link whose network has only the given faults, answering with `serve` behind it. */
function linkWith(faults: SimulationFaults, crash = false) {
  const time = new VirtualTime(0);
  const trace = new Trace(() => time.now());
  const served: string[] = [];
  const serve = (request: Request) => {
    served.push(`${request.method} ${new URL(request.url).pathname}`);
    return Promise.resolve(new Response("{}", { status: 200 }));
  };
  const net = new SimulatedNetwork(
    time,
    new SeededRandom(1),
    trace,
    faultWeights({ ...NONE, ...faults }),
    serve,
    () => "77",
  );
  const link = new OperatorLink(net, 1, () => crash);
  /** The answer to a request, on virtual time. */
  const ask = async (method: string, path: string, body?: unknown) => {
    let answer: Response | Error | undefined;
    link.handle(
      new Request(`http://cluster.simulation.invalid${path}`, {
        method,
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    ).then((r) => (answer = r), (e: Error) => (answer = e));
    await time.run(() => answer !== undefined, 60);
    return answer!;
  };
  return { link, ask, served, trace };
}

Deno.test("a throttled request gets APF's 429: plain text, Retry-After 1, the PF UIDs", async () => {
  const { ask, served } = linkWith({ errors: 1000 });
  const response = await ask("GET", "/api/v1/configmaps") as Response;
  assertEquals(response.status, 429);
  assertEquals(response.headers.get("Retry-After"), "1");
  assertEquals(response.headers.get("Content-Type"), "text/plain; charset=utf-8");
  const uid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
  assert(uid.test(response.headers.get("X-Kubernetes-PF-FlowSchema-UID") ?? ""));
  assert(uid.test(response.headers.get("X-Kubernetes-PF-PriorityLevel-UID") ?? ""));
  assertEquals(await response.text(), "Too many requests, please try again later.\n");
  assertEquals(served, []);
});

Deno.test("a resumed watch may get 410 Gone as an ERROR event of a 200 stream", async () => {
  const { ask } = linkWith({ expiredResumes: 10 });
  const resumed = await ask("GET", "/api/v1/configmaps?watch=true&resourceVersion=5") as Response;
  assertEquals(resumed.status, 200);
  const event = JSON.parse((await resumed.text()).trim());
  assertEquals(event.type, "ERROR");
  assertEquals(event.object.code, 410);
  assertEquals(event.object.reason, "Expired");
  assertEquals(event.object.message, "too old resource version: 5 (77)");
  // Not a new watch, nor a streaming list: those start from the current state.
  const fresh = await ask("GET", "/api/v1/configmaps?watch=true") as Response;
  assertEquals(fresh.status, 200);
  assertEquals((await fresh.text()).trim(), "{}");
});

Deno.test("a conflict comes from another writer first, and only for writes held to a version", async () => {
  const { ask, served, trace } = linkWith({ conflicts: 100 });
  const path = "/api/v1/namespaces/default/configmaps/x";
  const put = await ask("PUT", path, { metadata: { name: "x", resourceVersion: "3" } }) as Response;
  // The server itself answers (a 409 if the version is stale), after a real change.
  assertEquals(put.status, 200);
  assertEquals(served, [`PATCH ${path}`, `PUT ${path}`]);
  assert(trace.text().includes("another writer changes configmaps/x first"));
  served.length = 0;
  const patch = await ask("PATCH", path, { metadata: { labels: { a: "b" } } }) as Response;
  assertEquals(patch.status, 200);
  assertEquals(served, [`PATCH ${path}`]);
});

Deno.test("a crash right after a write: the write landed, the reply never comes", async () => {
  const { ask, served } = linkWith({}, true);
  const error = await ask("POST", "/api/v1/namespaces/default/configmaps", { metadata: {} });
  assert(error instanceof TypeError, String(error));
  assertEquals(served, ["POST /api/v1/namespaces/default/configmaps"]);
});

Deno.test("a cut link delivers nothing more either way", async () => {
  const { link, ask, served } = linkWith({});
  link.sever();
  const error = await ask("GET", "/api/v1/configmaps");
  assert(error instanceof TypeError);
  assertEquals(served, []);
  await assertRejects(
    () => link.handle(new Request("http://cluster.simulation.invalid/api")),
    TypeError,
    "the operator is gone",
  );
});
