/**
 * `kopf run --watch` as a user runs it, against a fake cluster that outlives the
 * operator's restarts: a change of the handler's code is in effect for the next object,
 * a handler running at the change finishes and its outcome is stored (a graceful stop,
 * as on SIGTERM), a syntax error is printed and waited out, its fix starts the operator
 * again, and SIGTERM stops it all with 0, leaving no process behind. Every wait is for a
 * line or an object, each bounded.
 */
import { parse } from "yaml";
import type { RawBody } from "../../mod.ts";
import { FakeCluster } from "../../src/testing/mod.ts";
import { assert, assertEquals } from "../assert.ts";

const ROOT = new URL("../../", import.meta.url);
const MAIN = new URL("src/cli/main.ts", ROOT).pathname;
const KIND = "kopfexamples.kopf.dev";

/** The operator's file: a create handler whose result names the version of the code. */
function operatorSource(version: string): string {
  return `import { kopf } from ${JSON.stringify(new URL("mod.ts", ROOT).href)};

kopf.on.create("kopfexamples", async function createFn({ name, logger }) {
  logger.info(\`handling with ${version}\`);
  if (name === "slow") await new Promise((resolve) => setTimeout(resolve, 2000));
  return "${version}";
});
`;
}

/** A process whose standard error is read line by line, lines awaited with a deadline. */
class Lines {
  readonly lines: string[] = [];
  readonly #waiters = new Set<() => void>();
  readonly done: Promise<void>;

  constructor(stream: ReadableStream<Uint8Array>) {
    this.done = (async () => {
      let buffer = "";
      for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
        buffer += chunk;
        const parts = buffer.split("\n");
        buffer = parts.pop()!;
        this.lines.push(...parts);
        for (const wake of this.#waiters) wake();
      }
      if (buffer) this.lines.push(buffer);
      for (const wake of this.#waiters) wake();
    })();
  }

  count(text: string): number {
    return this.lines.filter((line) => line.includes(text)).length;
  }

  /** Wait until `text` has been printed `times` times in all. */
  async waitFor(text: string, times = 1, seconds = 30): Promise<void> {
    const deadline = Date.now() + seconds * 1000;
    while (this.count(text) < times) {
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new Error(`No ${times}× "${text}" within ${seconds} s:\n${this.lines.join("\n")}`);
      }
      let wake!: () => void;
      const woken = new Promise<void>((resolve) => wake = resolve);
      this.#waiters.add(wake);
      const timer = setTimeout(wake, left);
      await woken;
      clearTimeout(timer);
      this.#waiters.delete(wake);
    }
  }
}

const result = (o?: RawBody) => (o?.status as { createFn?: unknown } | undefined)?.createFn;

Deno.test("kopf run --watch restarts the operator on changes, keeping the cluster", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(parse(await Deno.readTextFile(new URL("examples/crd.yaml", ROOT))) as RawBody);
  const kubeconfig = await cluster.writeKubeconfig();
  const dir = await Deno.makeTempDir({ prefix: "kopf-watch-" });
  const file = `${dir}/operator.ts`;
  await Deno.writeTextFile(file, operatorSource("one"));
  const kopf = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      MAIN,
      "run",
      "--watch",
      "--verbose",
      "--standalone",
      "--all-namespaces",
      "--grace-period",
      "20",
      "--kubeconfig",
      kubeconfig,
      file,
    ],
    cwd: new URL(".", ROOT).pathname,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const out = new Lines(kopf.stderr);
  const create = (name: string) =>
    cluster.create({
      apiVersion: "kopf.dev/v1",
      kind: "KopfExample",
      metadata: { name, namespace: "default" },
    });
  const handled = (name: string, value: string) =>
    cluster.waitFor(KIND, name, (o) => result(o) === value, { namespace: "default", timeout: 30 });
  try {
    await out.waitFor("Serving the whole cluster");
    create("first");
    await handled("first", "one");

    // A handler in progress at the change finishes, and its outcome is stored.
    create("slow");
    await out.waitFor("[default/slow] handling with one");
    await Deno.writeTextFile(file, operatorSource("two"));
    await out.waitFor("operator.ts changed: restarting the operator.");
    await handled("slow", "one");
    await out.waitFor("Serving the whole cluster", 2);
    create("second");
    await handled("second", "two");
    // The restarted operator found the objects handled: nothing ran again.
    assertEquals(out.count("[default/slow] handling with"), 1, out.lines.join("\n"));
    assertEquals(out.count("[default/first] handling with"), 1, out.lines.join("\n"));

    // A syntax error is said, and waited out; its fix starts the operator again.
    await Deno.writeTextFile(file, operatorSource("three").replace("async function", "async fun("));
    await out.waitFor("Cannot load");
    await out.waitFor("The operator exited with code 1; it starts again when its files change");
    const error = out.lines.find((line) => line.includes("Cannot load"))!;
    assert(error.includes(`${file}:`), `the error names where: ${error}`);
    await Deno.writeTextFile(file, operatorSource("three"));
    await out.waitFor("operator.ts changed: starting the operator.");
    await out.waitFor("Serving the whole cluster", 3);
    create("third");
    await handled("third", "three");
    assertEquals(result(cluster.get(KIND, "first", { namespace: "default" })), "one");
  } catch (error) {
    stopAll(kopf, out);
    throw error;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  kopf.kill("SIGTERM");
  const guard = setTimeout(() => stopAll(kopf, out), 30_000);
  const { code } = await kopf.status;
  // The standard error closes once the operator, which shares it, has exited too.
  await out.done;
  clearTimeout(guard);
  assertEquals(code, 0, out.lines.join("\n"));
  await out.waitFor("Signal SIGTERM received: stopping the operator and the watch.");
});

/** Kill the loop and the operator it started (it logs its process id). */
function stopAll(kopf: Deno.ChildProcess, out: Lines): void {
  for (const line of out.lines) {
    const pid = /The operator has started: process (\d+)\./.exec(line)?.[1];
    if (pid !== undefined) {
      try {
        Deno.kill(Number(pid), "SIGKILL");
      } catch {
        // exited already
      }
    }
  }
  try {
    kopf.kill("SIGKILL");
  } catch {
    // exited already
  }
}
