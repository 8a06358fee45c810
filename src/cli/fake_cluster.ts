/**
 * `kopf fake-cluster`: serve an in-memory Kubernetes API server on 127.0.0.1 until
 * SIGINT/SIGTERM, with a kubeconfig written for kubectl and operators. It serves HTTPS
 * with a CA generated at start and a bearer token by default, so that the kubeconfig is
 * one every client takes as it is; `--http` serves plain HTTP instead. With `--state`,
 * the objects survive restarts.
 *
 * @module
 */
import { Command, InvalidArgumentError } from "@commander-js/extra-typings";
import { onTerminationSignals } from "../platform/termination_signals.ts";
import { oneLine } from "../reactor/running.ts";
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
  /** The state file to load at start and save on stop. */
  state?: string;
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
  const cluster = await FakeCluster.start({
    port: options.port ?? 0,
    tls,
    clientCertificates: options.clientCertificates ?? false,
    token: options.token ?? (tls ? undefined : false),
    state: options.state,
  });
  let stopped!: () => void;
  const stopping = new Promise<void>((resolve) => (stopped = resolve));
  const removeSignals = onTerminationSignals(() => stopped());
  io.signal?.addEventListener("abort", () => stopped(), { once: true });
  if (io.signal?.aborted) stopped();
  try {
    const path = await cluster.writeKubeconfig(options.kubeconfig);
    const saving = options.state ? `; objects are saved to ${options.state} on exit` : "";
    print(
      `Fake cluster ready at ${cluster.url}: kubectl --kubeconfig=${path} get all (or export KUBECONFIG=${path})${saving}. Stop with Ctrl+C.`,
    );
    await stopping;
  } finally {
    removeSignals();
    await cluster.stop();
  }
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
    .option("--state <file>", "load objects from this file at start and save them on exit")
    .action(async (options, self) => {
      if (options.http && options.tls) {
        self.error("kopf fake-cluster: --http and --tls exclude each other.", { exitCode: 2 });
      }
      if (options.clientCertificates && options.http) {
        self.error("kopf fake-cluster: --client-certificates needs HTTPS; drop --http.", {
          exitCode: 2,
        });
      }
      try {
        await serveFakeCluster({ ...options, tls: !options.http });
      } catch (error) {
        self.error(`kopf fake-cluster: ${oneLine(error)}`, { exitCode: 1 });
      }
    });
  return command as unknown as Command;
}
