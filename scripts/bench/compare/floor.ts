/**
 * The floor of the comparison (`scripts/bench/compare.ts`): a controller with plain `fetch`
 * and nothing else. One LIST, then one WATCH from the list's resourceVersion, its
 * newline-delimited JSON parsed as it streams; one merge PATCH of the status per newly
 * seen object (`status.handled`: when it started handling the object, in ms since the
 * epoch; to `…/status`, or to the object when the bench serves the CRD without its status
 * subresource), at most `KOPF_BENCH_COMPARE_POOL` (16) at a time. A watch that ends resumes from
 * the last resourceVersion seen; 410 Gone (as a status or as an ERROR event) relists.
 *
 * With `--twice`, it also writes what the operator keeps in the object's metadata with its
 * default storages: before the status, a merge PATCH of the object that sets an
 * annotation (the size of the operator's diff-base). With a status subresource that is a
 * second request per object, as the operator's; without one, it goes in the same request.
 *
 *     deno run -A scripts/bench/compare/floor.ts <server-url> [<kubeconfig>] [--twice]
 *
 * Prints READY once its watch is open; runs until killed.
 */
import { lines, now } from "../support/process.ts";
import { poolSize, statusSubresource, WorkPool } from "./pool.ts";

interface Meta {
  name: string;
  namespace: string;
  uid: string;
  resourceVersion: string;
}
interface Item {
  metadata: Meta;
  status?: { handled?: number };
}

const server = Deno.args[0];
const PATH = "/apis/kopf.dev/v1/kopfexamples";
const seen = new Set<string>();
const subresource = statusSubresource();
const twice = Deno.args.includes("--twice");
/** As long as the operator's diff-base annotation of the bench's objects. */
const ANNOTATION = JSON.stringify({ apiVersion: "kopf.dev/v1", kind: "KopfExample" });
let resourceVersion = "";
let ready = false;

const pool = new WorkPool<Meta>(poolSize(), async (meta) => {
  const at = now();
  const url = `${server}/apis/kopf.dev/v1/namespaces/${meta.namespace}/kopfexamples/${meta.name}`;
  const annotations = twice ? { metadata: { annotations: { "bench/handled": ANNOTATION } } } : {};
  if (twice && subresource) await patch(url, annotations);
  await patch(
    subresource ? `${url}/status` : url,
    subresource ? { status: { handled: at } } : { ...annotations, status: { handled: at } },
  );
});

async function patch(url: string, body: unknown): Promise<void> {
  for (let attempt = 1;; attempt++) {
    try {
      const response = await fetch(url, {
        method: "PATCH",
        headers: { "content-type": "application/merge-patch+json" },
        body: JSON.stringify(body),
      });
      await response.body?.cancel();
      if (response.ok || response.status === 404) return;
      if (attempt === 5) throw new Error(`PATCH answered ${response.status}`);
    } catch (error) {
      if (attempt === 5) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
  }
}

function consider(item: Item): void {
  if (seen.has(item.metadata.uid)) return;
  seen.add(item.metadata.uid);
  if (item.status?.handled === undefined) pool.push(item.metadata);
}

async function list(): Promise<string> {
  const response = await fetch(`${server}${PATH}`);
  if (!response.ok) throw new Error(`LIST answered ${response.status}`);
  const body = await response.json() as { metadata: { resourceVersion: string }; items: Item[] };
  for (const item of body.items) consider(item);
  return body.metadata.resourceVersion;
}

/** Follow one watch request; whether it ended with 410 Gone (then relist). */
async function watch(): Promise<boolean> {
  const response = await fetch(
    `${server}${PATH}?watch=true&allowWatchBookmarks=true&resourceVersion=${resourceVersion}`,
  );
  if (!response.ok || !response.body) {
    await response.body?.cancel();
    if (response.status === 410) return true;
    throw new Error(`WATCH answered ${response.status}`);
  }
  if (!ready) {
    ready = true;
    console.log("READY");
  }
  for await (const line of lines(response.body)) {
    if (!line) continue;
    const event = JSON.parse(line) as { type: string; object: Item & { code?: number } };
    if (event.type === "ERROR") return event.object.code === 410;
    resourceVersion = event.object.metadata.resourceVersion;
    if (event.type === "ADDED" || event.type === "MODIFIED") consider(event.object);
  }
  return false;
}

resourceVersion = await list();
for (;;) {
  try {
    // A watch that ends (or breaks) resumes from the last resourceVersion seen.
    if (await watch()) resourceVersion = await list();
  } catch (error) {
    console.error(`The watch failed: ${error}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
