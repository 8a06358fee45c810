/**
 * Helpers for the command-line tests: `kopf fake-cluster` in a subprocess.
 */
import { holdingWebhook } from "../testing/fake_cluster/helpers.ts";

const MAIN = new URL("../../src/cli/main.ts", import.meta.url).pathname;

/** A `kopf fake-cluster` subprocess and what it printed first. */
export interface CliCluster {
  child: Deno.ChildProcess;
  reader: ReadableStreamDefaultReader<string>;
  /** The ready line. */
  out: string;
  /** The URL it serves, from the ready line. */
  url: string | undefined;
  /** Stop it with SIGTERM and wait for it to exit; returns its exit code. */
  stop(): Promise<number>;
}

/** Start `kopf fake-cluster` in a subprocess; resolves with its ready line. */
export async function startCli(args: string[]): Promise<CliCluster> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, "fake-cluster", ...args],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // A safety net only: the test waits for the output and the exit, never for a fixed time.
  const guard = setTimeout(() => child.kill("SIGKILL"), 60_000);
  void child.status.finally(() => clearTimeout(guard));
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  while (!out.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    out += value;
  }
  const url = /ready at (\S+):/.exec(out)?.[1];
  return {
    child,
    reader,
    out,
    url,
    async stop() {
      child.kill("SIGTERM");
      const { code } = await child.status;
      await reader.cancel();
      await child.stderr.cancel();
      return code;
    },
  };
}

/** A JSON POST to the CLI's fake cluster over plain HTTP (the admin, as `--http` serves). */
export function postJson(url: string, path: string, body: unknown): Promise<Response> {
  return fetch(`${url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

/**
 * A webhook that holds every ConfigMap create (`holdingWebhook`), registered with the CLI's
 * fake cluster over HTTP: each create then keeps its seat until `release()`.
 */
export async function holdCreates(url: string) {
  const held = await holdingWebhook();
  const path = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";
  const registered = await postJson(url, path, held.configuration);
  if (registered.status !== 201) throw new Error(`the webhook: ${await registered.text()}`);
  await registered.body?.cancel();
  return held;
}
