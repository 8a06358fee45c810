/**
 * `kopf fake-cluster`: serve an in-memory Kubernetes API server on 127.0.0.1 until
 * SIGINT/SIGTERM, with a kubeconfig written for kubectl and operators. It serves HTTPS
 * with a CA generated at start and a bearer token by default, so that the kubeconfig is
 * one every client takes as it is; `--http` serves plain HTTP instead. With `--state`,
 * the cluster survives restarts as a real API server does: its objects, and its identity
 * (CA, certificates, tokens, port), so that the kubeconfig of the last run still works.
 *
 * The fault flags inject the trouble a real cluster gives operators, so that one can soak
 * an operator of one's own: dropped watches, failing requests, 429 bursts with
 * `Retry-After`, latency, expiring tokens (the kubeconfig is rewritten with each new one),
 * and replies lost after the write.
 *
 * With `--max-inflight` (and `--max-queued`), it limits requests as kube-apiserver's API
 * Priority and Fairness does: so many at once, so many more waiting, the rest answered
 * with 429 and `Retry-After`.
 *
 * With `--rbac`, requests are authorized by Roles, ClusterRoles and their bindings, as on
 * a real cluster; the kubeconfig is the admin's, and `kubectl create token` gives other
 * identities (service accounts) their tokens.
 *
 * @module
 */
import { Command, InvalidArgumentError } from "@commander-js/extra-typings";
import { onTerminationSignals } from "../platform/termination_signals.ts";
import { secondsOfDuration } from "../structs/durations.ts";
import { EXIT_USAGE, exitCodeFor, failureText } from "../commands/usage.ts";
import { FakeCluster } from "../testing/fake_cluster/cluster.ts";

/** Options of {@link serveFakeCluster}, as the command line gives them. */
export interface FakeClusterCliOptions {
  /** The port; 0 or omitted picks a free one. */
  port?: number;
  /** Serve HTTPS with a generated CA (`true` by default); `false` serves plain HTTP. */
  tls?: boolean;
  /** The bearer token to require (a random one over HTTPS by default). */
  token?: string;
  /** Accept client certificates of the generated CA (with `tls`); the kubeconfig gets one. */
  clientCertificates?: boolean;
  /** Where to write the kubeconfig; a new temporary file by default. */
  kubeconfig?: string;
  /** The state file to load at start and save on stop: objects, CA, tokens, port (0600). */
  state?: string;
  /** Authorize requests with RBAC (the kubeconfig's token stays an admin). */
  rbac?: boolean;
  /** Refuse streamed listings (`sendInitialEvents`) as servers before 1.27 do; on by default. */
  streamingLists?: boolean;
  /** Seconds after their last write when Events are deleted (3600 by default; 0: never). */
  eventTtl?: number;
  /** Break every open watch every so many seconds. */
  dropWatchesEvery?: number;
  /** Fail this share of all requests with `errorStatus` (500 by default). */
  errorRate?: number;
  /** The status of the failures of `errorRate`. */
  errorStatus?: number;
  /** Every so many seconds, throttle for as long: a share of 30% of requests get 429. */
  throttleEvery?: number;
  /** The `Retry-After` seconds of the 429s (1 by default). */
  retryAfter?: number;
  /** Delay every response by so many milliseconds. */
  latency?: number;
  /** Issue a new token every so many seconds (the kubeconfig is rewritten with it). */
  expireTokenEvery?: number;
  /** Lose the reply of this share of writes (the write is done, the answer never comes). */
  loseReplies?: number;
  /** Serve at most this many requests at once, as API Priority and Fairness does. */
  maxInflight?: number;
  /** With `maxInflight`: how many more may wait (as many as `maxInflight` by default). */
  maxQueued?: number;
}

/** Where {@link serveFakeCluster} reports, and what stops it. */
export interface FakeClusterCliIo {
  /** Prints one line for the user (stdout by default). */
  print?: (line: string) => void;
  /** Prints a warning line (stderr by default). */
  warn?: (line: string) => void;
  /** Stops the server when aborted (besides SIGINT/SIGTERM). */
  signal?: AbortSignal;
}

/** Serve a fake cluster until a termination signal (or `io.signal`); then save and stop. */
export async function serveFakeCluster(
  options: FakeClusterCliOptions,
  io: FakeClusterCliIo = {},
): Promise<void> {
  const print = io.print ?? ((line: string) => console.log(line));
  const warn = io.warn ?? ((line: string) => console.error(line));
  const tls = options.tls ?? true;
  if (options.token && !tls) {
    warn("Warning: kubectl sends tokens over HTTPS only; drop --http to use --token with kubectl.");
  }
  if (options.rbac && !tls) {
    warn(
      "Warning: kubectl sends tokens over HTTPS only, so with --rbac over --http it is anonymous and mostly forbidden; drop --http to use kubectl.",
    );
  }
  const cluster = await FakeCluster.start({
    port: options.port ?? 0,
    tls,
    clientCertificates: options.clientCertificates ?? false,
    token: options.token ?? (tls || options.rbac ? undefined : false),
    state: options.state,
    rbac: options.rbac ?? false,
    streamingLists: options.streamingLists ?? true,
    eventTtl: options.eventTtl,
    maxInflight: options.maxInflight,
    maxQueued: options.maxQueued,
  });
  let stopped!: () => void;
  const stopping = new Promise<void>((resolve) => (stopped = resolve));
  const removeSignals = onTerminationSignals(() => stopped());
  io.signal?.addEventListener("abort", () => stopped(), { once: true });
  if (io.signal?.aborted) stopped();
  let path = "";
  const timers = injectFaults(cluster, options, () => cluster.writeKubeconfig(path));
  try {
    path = await cluster.writeKubeconfig(options.kubeconfig);
    const saving = options.state
      ? `; objects and credentials are saved to ${options.state} on exit`
      : "";
    const rbac = options.rbac
      ? "; RBAC is on: the kubeconfig is the admin's, `kubectl create token NAME` gives a service account a token"
      : "";
    const limits = options.maxInflight
      ? `; at most ${options.maxInflight} requests at once, ${
        options.maxQueued ?? options.maxInflight
      } more queued, the rest get 429`
      : "";
    print(
      `Fake cluster ready at ${cluster.url}: kubectl --kubeconfig=${path} get all (or export KUBECONFIG=${path})${saving}${rbac}${limits}. Stop with Ctrl+C.`,
    );
    await stopping;
  } finally {
    for (const timer of timers) clearInterval(timer);
    try {
      await cluster.stop();
    } finally {
      // Only now: a signal forwarded again meanwhile (npx, deno task) must not kill the
      // process, by the runtime's default, while it saves its state.
      removeSignals();
    }
  }
}

/** Set up the faults the options ask for; returns the timers to clear at the stop. */
function injectFaults(
  cluster: FakeCluster,
  options: FakeClusterCliOptions,
  rewriteKubeconfig: () => Promise<string>,
): ReturnType<typeof setInterval>[] {
  const faults = cluster.faults;
  const timers: ReturnType<typeof setInterval>[] = [];
  if (options.dropWatchesEvery) faults.dropWatchesEvery(options.dropWatchesEvery);
  if (options.latency) faults.latency(options.latency);
  if (options.loseReplies) faults.loseReplies({ share: options.loseReplies });
  const steady = () => {
    if (options.errorRate) {
      faults.failRequests({ share: options.errorRate, status: options.errorStatus ?? 500 });
    }
  };
  steady();
  if (options.throttleEvery) {
    let storm = false;
    timers.push(setInterval(() => {
      storm = !storm;
      if (storm) {
        faults.failRequests({ share: 0.3, status: 429, retryAfter: options.retryAfter ?? 1 });
      } else {
        // Clearing removes every rule: put back what is always on.
        faults.clear();
        if (options.dropWatchesEvery) faults.dropWatchesEvery(options.dropWatchesEvery);
        if (options.latency) faults.latency(options.latency);
        if (options.loseReplies) faults.loseReplies({ share: options.loseReplies });
        steady();
      }
    }, options.throttleEvery * 1000));
  }
  if (options.expireTokenEvery) {
    timers.push(setInterval(() => {
      faults.expireToken();
      void rewriteKubeconfig();
    }, options.expireTokenEvery * 1000));
  }
  return timers;
}

/** A number of seconds (or milliseconds) that must be positive. */
function positive(what: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!(n > 0) || !Number.isFinite(n)) {
      throw new InvalidArgumentError(`${what} must be a positive number, not ${value}.`);
    }
    return n;
  };
}

/** A share of requests, from 0 to 1. */
function share(value: string): number {
  const n = Number(value);
  if (!(n >= 0 && n <= 1)) {
    throw new InvalidArgumentError(`the share must be from 0 to 1 (e.g. 0.05), not ${value}.`);
  }
  return n;
}

/**
 * Parse `--event-ttl`: seconds, or a Go duration as kube-apiserver's own flag takes it
 * (`5s`, `1m30s`, `1h0m0s`); 0 keeps Events forever.
 */
export function parseEventTtl(value: string): number {
  const seconds = secondsOfDuration(value);
  if (seconds === undefined) {
    throw new InvalidArgumentError(
      `the Event TTL must be seconds (e.g. 3600, 0 for never) or a duration such as 5s, 1m30s or 1h0m0s, not ${
        JSON.stringify(value)
      }.`,
    );
  }
  return seconds;
}

/** A whole number of requests, at least `least`. */
function requests(flag: string, least: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || n < least) {
      throw new InvalidArgumentError(
        `${flag} must be a whole number of requests, at least ${least}, not ${
          JSON.stringify(value)
        }.`,
      );
    }
    return n;
  };
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) {
    throw new InvalidArgumentError(
      "the port must be a number from 0 to 65535 (0 picks a free one).",
    );
  }
  return port;
}

/** The `kopf fake-cluster` subcommand. */
export function fakeClusterCommand(): Command {
  const command = new Command("fake-cluster")
    .description(
      "Serve an in-memory Kubernetes API server on 127.0.0.1 for tests and local development.",
    )
    .option("--port <port>", "the port to listen on (0 picks a free one)", parsePort, 0)
    .option("--tls", "serve HTTPS with a certificate authority generated at start (the default)")
    .option(
      "--http",
      "serve plain HTTP instead (the kubeconfig then skips TLS verification, which every client needs to accept plain HTTP)",
    )
    .option("--token <token>", "require this bearer token (a random one by default over HTTPS)")
    .option(
      "--client-certificates",
      "also accept client certificates of the generated CA; the kubeconfig gets one",
    )
    .option("--kubeconfig <path>", "write the kubeconfig here (a temporary file by default)")
    .option(
      "--state <file>",
      "load the cluster from this file at start and save it on exit: objects, and the CA, tokens and port, so that old kubeconfigs keep working",
    )
    .option(
      "--no-streaming-lists",
      "refuse watches with sendInitialEvents (422), as servers before Kubernetes 1.27 do",
    )
    .option(
      "--event-ttl <duration>",
      "delete Events this long after their last write, as kube-apiserver's --event-ttl: seconds or a duration such as 1m30s (1h by default; 0: never)",
      parseEventTtl,
    )
    .option(
      "--rbac",
      "authorize requests with RBAC (Roles, ClusterRoles, bindings); the kubeconfig stays an admin",
    )
    .option(
      "--drop-watches-every <seconds>",
      "fault: break every watch this often",
      positive("seconds"),
    )
    .option("--error-rate <share>", "fault: fail this share of requests (e.g. 0.05)", share)
    .option(
      "--error-status <code>",
      "the status of those failures (500 by default)",
      positive("the status"),
    )
    .option(
      "--throttle-every <seconds>",
      "fault: every so often, for as long, answer 30% of requests with 429",
      positive("seconds"),
    )
    .option(
      "--retry-after <seconds>",
      "the Retry-After of the 429s (1 by default)",
      positive("seconds"),
    )
    .option("--latency <ms>", "fault: delay every response", positive("the latency"))
    .option(
      "--expire-token-every <seconds>",
      "fault: issue a new token this often (the kubeconfig is rewritten with it)",
      positive("seconds"),
    )
    .option("--lose-replies <share>", "fault: lose the reply of this share of writes", share)
    .option(
      "--max-inflight <n>",
      "serve at most n requests at once, as API Priority and Fairness does; more wait in a queue, the rest get 429 with Retry-After (watches hold a place only while set up)",
      requests("--max-inflight", 1),
    )
    .option(
      "--max-queued <m>",
      "with --max-inflight: how many more requests may wait, each up to a quarter of its deadline (as many as --max-inflight by default; 0 for none)",
      requests("--max-queued", 0),
    )
    .action(async (options, self) => {
      if (options.http && options.tls) {
        self.error("kopf fake-cluster: --http and --tls exclude each other.", {
          exitCode: EXIT_USAGE,
        });
      }
      if (options.maxQueued !== undefined && options.maxInflight === undefined) {
        self.error("kopf fake-cluster: --max-queued needs --max-inflight too.", {
          exitCode: EXIT_USAGE,
        });
      }
      if (options.clientCertificates && options.http) {
        self.error("kopf fake-cluster: --client-certificates needs HTTPS; drop --http.", {
          exitCode: EXIT_USAGE,
        });
      }
      try {
        await serveFakeCluster({ ...options, tls: !options.http });
      } catch (error) {
        self.error(failureText("fake-cluster", error), { exitCode: exitCodeFor(error) });
      }
    });
  return command as unknown as Command;
}
