/**
 * Replicas of one operator as processes of their own (`kopf run` of the replica fixture),
 * against one fake cluster: they can be killed for real. Each replica's handler runs are
 * read from its stdout, with start and end times, for the checks that no two runs for
 * one object ever overlap.
 */
import { parse as parseYaml } from "yaml";
import type { RawBody } from "../../mod.ts";
import type { FakeCluster } from "../../src/testing/mod.ts";
import { recordOf } from "../../src/engines/leases.ts";

const ROOT = new URL("../../", import.meta.url);
const MAIN = new URL("src/cli/main.ts", ROOT).pathname;
const FIXTURE = new URL("tests/fixtures/replica_operator.ts", ROOT).pathname;

/** The Lease resource, as the fake cluster's direct calls name it. */
export const LEASE = { apiVersion: "coordination.k8s.io/v1", kind: "Lease" };
/** The examples' custom resource. */
export const KIND = { apiVersion: "kopf.dev/v1", kind: "KopfExample" };

/** Install the examples' CRD. */
export async function installCrd(cluster: FakeCluster): Promise<void> {
  const text = await Deno.readTextFile(new URL("examples/crd.yaml", ROOT));
  cluster.create(parseYaml(text) as RawBody);
}

/** One handler run: which replica, what, for which object, from when to when (epoch ms). */
export interface HandlerRun {
  readonly replica: string;
  readonly what: string;
  readonly object: string;
  readonly start: number;
  /** When it ended; when the replica was killed, for a run cut short. */
  end: number | undefined;
}

/** A replica: a `kopf run` process with `POD_ID` as its identity. */
export class Replica {
  readonly name: string;
  readonly runs: HandlerRun[] = [];
  readonly #child: Deno.ChildProcess;
  readonly #stderr: string[] = [];
  readonly #output: Promise<void>;
  /** When it was killed (epoch ms), if it was. */
  killedAt: number | undefined;

  constructor(name: string, child: Deno.ChildProcess) {
    this.name = name;
    this.#child = child;
    this.#output = Promise.all([
      this.#read(child.stdout, (line) => this.#record(line)),
      this.#read(child.stderr, (line) => this.#stderr.push(line)),
    ]).then(() => {});
  }

  async #read(stream: ReadableStream<Uint8Array>, each: (line: string) => void): Promise<void> {
    let rest = "";
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      const lines = (rest + chunk).split("\n");
      rest = lines.pop()!;
      for (const line of lines) each(line);
    }
    if (rest) each(rest);
  }

  #record(line: string): void {
    const [marker, what, object, time] = line.split(" ");
    if (marker === "START") {
      // A line still in the pipe when the replica was killed: cut short by the kill.
      const end = this.killedAt;
      this.runs.push({ replica: this.name, what, object, start: Number(time), end });
    } else if (marker === "END") {
      const run = this.runs.findLast((r) => r.what === what && r.object === object);
      if (run !== undefined) run.end = Number(time);
    }
  }

  /** The runs started but not ended. */
  get open(): HandlerRun[] {
    return this.runs.filter((r) => r.end === undefined);
  }

  /** What it logged so far. */
  get log(): string {
    return this.#stderr.join("\n");
  }

  /** Whether it logged a line matching the pattern. */
  logged(pattern: RegExp): boolean {
    return this.#stderr.some((line) => pattern.test(line));
  }

  /** Kill it with a signal; a SIGKILL cuts its open runs short at this moment. */
  kill(signal: Deno.Signal): void {
    this.#child.kill(signal);
    if (signal === "SIGKILL") {
      // Taken after the signal is sent: whatever the replica started, it started before.
      this.killedAt = Date.now();
      for (const run of this.open) run.end = this.killedAt;
    }
  }

  /** Its exit code, once its output is read to the end. */
  async exited(): Promise<number> {
    const status = await this.#child.status;
    await this.#output;
    return status.code;
  }

  /** Kill it if still running, and wait for it (for `finally`). */
  async [Symbol.asyncDispose](): Promise<void> {
    try {
      this.#child.kill("SIGKILL");
    } catch {
      // exited already
    }
    await this.exited();
  }
}

/** The replica fixture's file. */
export const REPLICA_OPERATOR: string = FIXTURE;

/** Start a replica of the fixture operator with `kopf run` and these flags. */
export function startReplica(
  name: string,
  kubeconfig: string,
  flags: readonly string[],
  env: Record<string, string> = {},
): Replica {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      MAIN,
      "run",
      "--kubeconfig",
      kubeconfig,
      ...flags,
      FIXTURE,
    ],
    env: { POD_ID: name, NO_COLOR: "1", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  return new Replica(name, child);
}

/** Who holds the Lease now ("" when released; `undefined` when there is none). */
export function holderOf(cluster: FakeCluster, name: string): string | undefined {
  const lease = cluster.get(LEASE, name);
  return lease === undefined ? undefined : recordOf(lease).holderIdentity;
}

/**
 * Wait until `check` holds, polling every `every` ms (20 by default: checks over thousands
 * of objects should poll less often, not to starve the fake cluster in this process);
 * returns when (epoch ms); fails after `seconds`.
 */
export async function until(
  what: string,
  check: () => boolean,
  seconds: number,
  every = 20,
): Promise<number> {
  const deadline = Date.now() + seconds * 1000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${seconds}s waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, every));
  }
  return Date.now();
}

/**
 * The pairs of runs for one object that overlap in time (whichever replicas ran them):
 * none may, if the coordination works. Each pair is described in one line.
 */
export function overlappingRuns(replicas: readonly Replica[]): string[] {
  const byObject = new Map<string, HandlerRun[]>();
  for (const replica of replicas) {
    for (const run of replica.runs) {
      const list = byObject.get(run.object) ?? [];
      list.push(run);
      byObject.set(run.object, list);
    }
  }
  const found: string[] = [];
  for (const [object, runs] of byObject) {
    runs.sort((a, b) => a.start - b.start);
    for (let i = 1; i < runs.length; i++) {
      const before = runs[i - 1];
      const after = runs[i];
      const end = before.end ?? Infinity;
      if (after.start < end) {
        found.push(
          `${object}: ${before.replica} ran ${before.what} ${before.start}–${before.end ?? "…"}, ` +
            `${after.replica} ran ${after.what} from ${after.start}`,
        );
      }
    }
  }
  return found;
}
