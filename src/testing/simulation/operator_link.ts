/**
 * One operator process's line to the simulated cluster: every request it (or a client of
 * its handlers, wherever that client was made) sends crosses the network with its latency, may meet a fault or a legal
 * answer that operators get wrong, reaches the fake cluster's router, and comes back --
 * unless the process died meanwhile. A crashed process's link is cut: nothing it sends
 * afterwards arrives, and no reply reaches it.
 *
 * @module
 */
import { markDelivery } from "../../platform/request_delivery.ts";
import { ApiError, statusOf } from "../fake_cluster/errors.ts";
import { tooManyRequests } from "../fake_cluster/flow_control.ts";
import { errorResponse } from "../fake_cluster/http_responses.ts";
import { BASE_RATES } from "./simulation_faults.ts";
import type { SimulatedNetwork } from "./network.ts";
import { WatchRelay } from "./watch_relay.ts";

/** What a request addresses, read from its path. */
interface Addressed {
  readonly group: string;
  readonly plural: string;
  readonly name: string;
}

/** The resource and name of an object's path (`/api/v1/namespaces/ns/configmaps/x`). */
function addressOf(path: string): Addressed | undefined {
  const parts = path.split("/").filter((p) => p !== "");
  let rest: string[];
  let group: string;
  if (parts[0] === "api") {
    group = "";
    rest = parts.slice(2);
  } else if (parts[0] === "apis") {
    group = parts[1] ?? "";
    rest = parts.slice(3);
  } else return undefined;
  if (rest[0] === "namespaces" && rest.length >= 4) rest = rest.slice(2);
  if (rest.length < 2) return undefined;
  return { group, plural: rest[0], name: rest[1] };
}

/** Whether a write's body holds it to a resourceVersion (so a 409 is a legal answer). */
function namesResourceVersion(method: string, body: string): boolean {
  try {
    const value = JSON.parse(body) as Record<string, unknown> | unknown[];
    if (Array.isArray(value)) {
      return value.some((op) =>
        (op as { path?: string })?.path === "/metadata/resourceVersion" &&
        (op as { op?: string })?.op === "test"
      );
    }
    if (method === "DELETE") {
      const pre = value?.preconditions as { resourceVersion?: unknown } | undefined;
      return typeof pre?.resourceVersion === "string";
    }
    const meta = value?.metadata as { resourceVersion?: unknown } | undefined;
    return typeof meta?.resourceVersion === "string" && meta.resourceVersion !== "";
  } catch {
    return false;
  }
}

/** The path with a short query, for the trace. */
function describe(method: string, url: URL): string {
  const query = url.search.length > 160 ? url.search.slice(0, 157) + "..." : url.search;
  return `${method} ${url.pathname}${query}`;
}

/** The annotation that another writer changes, to cause a legal conflict. */
const ANOTHER_WRITER = "simulation.kopf.dev/another-writer";

/** The error of a request that never reached the server, or whose reply never came. */
function cut(why: string, unsent: boolean): TypeError {
  return markDelivery(new TypeError(`connection reset: ${why}`), { unsent });
}

/** See the module. */
export class OperatorLink {
  #severed = false;
  #watches = 0;
  readonly #relays = new Set<WatchRelay>();

  constructor(
    readonly net: SimulatedNetwork,
    /** The process's number: 1 for the first operator, 2 after its first restart... */
    readonly process: number,
    /**
     * Told that a write of this process has landed; `true` if the process dies right
     * there (before the reply), as the simulation's crashes decide.
     */
    readonly onWriteLanded: () => boolean,
  ) {}

  /** Whether the link is cut. */
  get severed(): boolean {
    return this.#severed;
  }

  /** Cut the link: open watches break, nothing more is delivered either way. */
  sever(): void {
    this.#severed = true;
    for (const relay of [...this.#relays]) relay.break("the operator is gone");
  }

  /** Answer one request of the process (the in-process server's handler). */
  readonly handle = async (request: Request): Promise<Response> => {
    if (this.#severed) throw cut("the operator is gone", true);
    const net = this.net;
    const url = new URL(request.url);
    const method = request.method;
    const what = describe(method, url);
    await net.travel();
    if (this.#severed) throw cut("the operator is gone", true);
    const watch = method === "GET" && /^(1|true)$/.test(url.searchParams.get("watch") ?? "");
    const write = method !== "GET" && method !== "HEAD";
    let response = await this.#fault(request, url, what, watch, write) ??
      await net.serve(request);
    const landed = write && response.ok;
    net.trace.add("api", `${what} -> ${response.status}`);
    if (landed && this.onWriteLanded()) {
      await response.body?.cancel();
      throw cut("the operator crashed before the reply", false);
    }
    if (landed && net.roll("lostReplies", BASE_RATES.lostReply)) {
      net.trace.add("fault", `the reply to ${what} is lost`);
      await response.body?.cancel();
      throw cut("the reply was lost", false);
    }
    if (watch && response.ok && response.body !== null) {
      const label = `#${this.process}.${++this.#watches} ${
        addressOf(url.pathname + "/-")?.plural ?? url.pathname
      }`;
      const relay: WatchRelay = new WatchRelay(
        response.body,
        net,
        label,
        () => this.#relays.delete(relay),
      );
      this.#relays.add(relay);
      if (this.#severed) relay.break("the operator is gone");
      response = new Response(relay.stream, { status: response.status, headers: response.headers });
    }
    await net.travel();
    if (this.#severed) {
      await response.body?.cancel().catch(() => {});
      throw cut("the operator is gone", false);
    }
    return response;
  };

  /** A fault or a legal answer instead of the server's, if one happens now. */
  async #fault(
    request: Request,
    url: URL,
    what: string,
    watch: boolean,
    write: boolean,
  ): Promise<Response | undefined> {
    const net = this.net;
    if (net.roll("errors", BASE_RATES.throttled)) {
      net.trace.add("fault", `429 for ${what} (Retry-After: 1)`);
      return tooManyRequests(1);
    }
    if (net.roll("errors", BASE_RATES.failed)) {
      const code = net.random.chance(0.5) ? 500 : 503;
      net.trace.add("fault", `${code} for ${what}`);
      const message = code === 500
        ? "Internal error occurred: the simulation failed this request"
        : "the server is currently unable to handle the request";
      return errorResponse(new ApiError(code, message));
    }
    if (watch) {
      const rv = url.searchParams.get("resourceVersion") ?? "";
      const resumed = rv !== "" && rv !== "0" &&
        !/^(1|true)$/.test(url.searchParams.get("sendInitialEvents") ?? "");
      if (resumed && net.roll("expiredResumes", BASE_RATES.expiredResume)) {
        net.trace.add("fault", `410 Gone for ${what}`);
        const status = statusOf(
          410,
          `too old resource version: ${rv} (${net.resourceVersion()})`,
          "Expired",
        );
        const line = JSON.stringify({ type: "ERROR", object: status }) + "\n";
        return new Response(line, {
          status: 200,
          headers: { "Content-Type": "application/json" },
        });
      }
    }
    if (write && net.roll("conflicts", BASE_RATES.conflict)) {
      const target = addressOf(url.pathname);
      const body = request.method === "POST" ? "" : await request.clone().text();
      if (target !== undefined && namesResourceVersion(request.method, body)) {
        // A conflict is legal only when the object did change: kube-apiserver compares the
        // precondition with the stored version (storage/etcd3/store.go, GuaranteedUpdate).
        // So another writer comes first for real, and the server answers the request itself
        // (409, or 422 for a failed JSON Patch `test`); its watchers see that write.
        if (await this.#anotherWriter(url, target)) {
          net.trace.add("fault", `another writer changes ${target.plural}/${target.name} first`);
        }
      }
    }
    return undefined;
  }

  /** Change the addressed object as another client would; whether it existed to change. */
  async #anotherWriter(url: URL, target: Addressed): Promise<boolean> {
    const path = url.pathname.slice(0, url.pathname.lastIndexOf(`/${target.name}`)) +
      `/${target.name}`;
    const patch = { metadata: { annotations: { [ANOTHER_WRITER]: this.net.resourceVersion() } } };
    const response = await this.net.serve(
      new Request(new URL(path, url), {
        method: "PATCH",
        headers: { "Content-Type": "application/merge-patch+json" },
        body: JSON.stringify(patch),
      }),
    );
    await response.body?.cancel();
    return response.ok;
  }
}
