/**
 * The operator of the big-clusters benchmark (`scripts/bench/big_clusters.ts`), in a process of
 * its own so that its memory is measured apart from the fake cluster's. One mode per run:
 *
 *     deno run -A big_operator.ts <server-url> <mode> <namespace>[,<namespace>…]
 *
 * - `labels`: pods, a create and an update handler that filter `labels: { app: "watched" }`,
 *   which the operator sends to the API server as a label selector;
 * - `callback`: the same handlers filtering with a `when` callback, which cannot be sent:
 *   every pod is transferred and filtered here;
 * - `metadata`: ConfigMaps, a create and an update handler registered with
 *   `metadataOnly: true` (watched as PartialObjectMetadata), whose results derive from the
 *   metadata — and, for those labelled `inspect=yes`, from the whole object, read with
 *   `fetchBody()`;
 * - `bodies`: the same handlers without `metadataOnly`: whole objects are watched;
 * - `live`: KopfExamples, one create handler on all that returns when it started (the
 *   framework writes it to `status.createFn.started`).
 *
 * Prints `READY` once ready, and in the pods' and ConfigMaps' modes
 * `H <handler> <namespace>/<name> <result>` at each handler call. Events are not posted (they
 * would be writes of their own). `KOPF_BENCH_BIG_VERBOSE=1` logs at the debug level. Runs
 * until SIGTERM.
 */
import { kopf } from "../../../mod.ts";
import { operateUntilTerminated } from "./bench_operator.ts";
import { now } from "./process.ts";

const [server, mode, namespaces] = Deno.args;
const registry = new kopf.OperatorRegistry();
kopf.on.login({ registry, id: "bench-login" }, () => ({ server }));

const WATCHED = "watched";

/** Tells the parent which object a handler ran for. */
function tell(handler: string, kw: Kwargs, result = ""): void {
  console.log(`H ${handler} ${kw.namespace}/${kw.name} ${result}`);
}

type Kwargs = { name: string | undefined; namespace: string | undefined };
type MetaKwargs = Kwargs & {
  labels: Labels;
  annotations: Labels;
  fetchBody: () => Promise<{ data?: unknown }>;
};
type Filter = { labels: { app: string } } | { when: (kw: { labels: Labels }) => boolean };
type Labels = Readonly<Record<string, string>>;

function podHandlers(filter: Filter): void {
  kopf.on.create("pods", { registry, ...filter }, function podCreated(kw: Kwargs) {
    tell("create", kw);
    return { seen: true };
  });
  kopf.on.update("pods", { registry, ...filter }, function podUpdated(kw: Kwargs) {
    tell("update", kw);
  });
}

/** A result from the metadata; from the data too for the objects to inspect. */
async function summary(kw: MetaKwargs): Promise<string> {
  const digest = `${kw.labels.tier}:${kw.annotations["bench.kopf.dev/digest"]}`;
  if (kw.labels.inspect !== "yes") return digest;
  const data = (await kw.fetchBody()).data as Record<string, string> | undefined;
  const sizes = Object.entries(data ?? {}).map(([key, value]) => `${key}=${value.length}`);
  return `${digest}:${sizes.join(",")}`;
}

function configMapHandlers(metadataOnly: boolean): void {
  kopf.on.create("configmaps", { registry, metadataOnly }, async function cmCreated(kw) {
    const result = await summary(kw as MetaKwargs);
    tell("create", kw, result);
    return { summary: result };
  });
  kopf.on.update("configmaps", { registry, metadataOnly }, async function cmUpdated(kw) {
    const result = await summary(kw as MetaKwargs);
    tell("update", kw, result);
    return { summary: result };
  });
}

switch (mode) {
  case "labels":
    podHandlers({ labels: { app: WATCHED } });
    break;
  case "callback":
    podHandlers({ when: ({ labels }) => labels.app === WATCHED });
    break;
  case "metadata":
    configMapHandlers(true);
    break;
  case "bodies":
    configMapHandlers(false);
    break;
  case "live":
    kopf.on.create("kopfexamples.kopf.dev", { registry }, function createFn() {
      return { started: now() };
    });
    break;
  default:
    console.error(`Unknown mode ${mode}: labels, callback, metadata, bodies or live.`);
    Deno.exit(2);
}

kopf.configure(
  Deno.env.get("KOPF_BENCH_BIG_VERBOSE") === "1" ? { verbose: true } : { quiet: true },
);
const settings = new kopf.OperatorSettings({ posting: { enabled: false } });
await operateUntilTerminated({ registry, settings, namespaces: namespaces.split(",") });
