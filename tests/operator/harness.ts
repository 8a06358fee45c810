/**
 * A harness for integration tests: a FakeCluster with the KopfExample CRD, operators
 * running against it over HTTP with the real client, captured log lines, and a recorder
 * of handler calls that can be awaited (no polling, no sleeps).
 */
import { parseAllDocuments } from "yaml";
import type { RawBody } from "../../src/structs/bodies.ts";
import { configure } from "../../src/platform/logging.ts";
import {
  OperatorSettings,
  type OperatorSettingsInit,
} from "../../src/settings/operator_settings.ts";
import { OperatorRegistry } from "../../src/intents/registry.ts";
import { on } from "../../src/intents/registration.ts";
import { operator } from "../../src/reactor/running.ts";
import type { OperatorOptions } from "../../src/reactor/operator_options.ts";
import { FakeCluster } from "../../src/testing/mod.ts";
import { ApiClient } from "../../src/client/api.ts";
import { Vault } from "../../src/client/vault.ts";

/**
 * The KopfExample CRD, optionally with the status subresource, and with `status.conditions`
 * declared as Kubernetes declares its own (a list keyed by `type`); else all untyped.
 */
export function kexCrd(options: { status?: boolean; keyedConditions?: boolean } = {}): RawBody {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "kopfexamples.kopf.dev" },
    spec: {
      group: "kopf.dev",
      scope: "Namespaced",
      names: {
        plural: "kopfexamples",
        singular: "kopfexample",
        kind: "KopfExample",
        shortNames: ["kex"],
      },
      versions: [{
        name: "v1",
        served: true,
        storage: true,
        ...(options.status ? { subresources: { status: {} } } : {}),
        schema: {
          openAPIV3Schema: {
            type: "object",
            "x-kubernetes-preserve-unknown-fields": true,
            ...(options.keyedConditions ? { properties: { status: KEYED_CONDITIONS } } : {}),
          },
        },
      }],
    },
  };
}

/** A status whose conditions are a list keyed by `type`, and the rest untyped. */
const KEYED_CONDITIONS = {
  type: "object",
  "x-kubernetes-preserve-unknown-fields": true,
  properties: {
    conditions: {
      type: "array",
      "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["type"],
      items: {
        type: "object",
        "x-kubernetes-preserve-unknown-fields": true,
        required: ["type", "status"],
        properties: { type: { type: "string" }, status: { type: "string" } },
      },
    },
  },
};

/** A KopfExample object. */
export function kex(
  name: string,
  spec: Record<string, unknown> = {},
  extra: RawBody = {},
): RawBody {
  return {
    apiVersion: "kopf.dev/v1",
    kind: "KopfExample",
    ...extra,
    metadata: { name, namespace: "default", ...extra.metadata },
    spec: { field: "value", ...spec },
  };
}

/** All log lines of this test process (configured once). */
export const LOGS: string[] = [];
/** Waiters for log lines, told of each line as it is written. */
const logWaiters = new Set<(line: string) => void>();
configure({
  debug: true,
  logFormat: "plain",
  writer: (line) => {
    LOGS.push(line);
    for (const waiter of logWaiters) waiter(line);
    if (Deno.env.get("KOPF_TEST_LOGS")) console.error(line);
  },
});

/**
 * The `count`-th log line (of all this process wrote, earlier ones included) that meets the
 * predicate, as soon as it is written; fails after `seconds`.
 */
export function untilLogged(
  predicate: (line: string) => boolean,
  count = 1,
  seconds = 10,
): Promise<string> {
  const earlier = LOGS.filter(predicate);
  if (earlier.length >= count) return Promise.resolve(earlier[count - 1]);
  let seen = earlier.length;
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      logWaiters.delete(waiter);
      reject(new Error(`no ${count} log lines as awaited within ${seconds}s (${seen} seen)`));
    }, seconds * 1000);
    const waiter = (line: string) => {
      if (!predicate(line) || ++seen < count) return;
      clearTimeout(timer);
      logWaiters.delete(waiter);
      resolve(line);
    };
    logWaiters.add(waiter);
  });
}

/** The log lines about one object (plain format: `[namespace/name] message`). */
export function logsOf(name: string): string[] {
  return LOGS.filter((line) => line.includes(`[default/${name}]`));
}

/** Fast settings for tests. */
export function testSettings(init: OperatorSettingsInit = {}): OperatorSettings {
  return new OperatorSettings({
    ...init,
    batching: { batchWindow: 0.01, idleTimeout: 5, exitTimeout: 3, ...init.batching },
    persistence: { consistencyTimeout: 3, ...init.persistence },
    posting: { enabled: false, ...init.posting },
  });
}

/** Records calls and lets a test await a number of them. */
export class Calls<T = string> {
  readonly list: T[] = [];
  #waiters: { check: () => boolean; resolve: () => void }[] = [];

  add(item: T): void {
    this.list.push(item);
    this.#waiters = this.#waiters.filter((w) => !(w.check() && (w.resolve(), true)));
  }

  count(predicate: (item: T) => boolean = () => true): number {
    return this.list.filter(predicate).length;
  }

  /** Wait until `predicate` holds for at least `n` calls. */
  until(n: number, predicate: (item: T) => boolean = () => true, seconds = 10): Promise<void> {
    const check = () => this.count(predicate) >= n;
    if (check()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        reject(new Error(`Timed out: ${n} calls expected; got ${JSON.stringify(this.list)}`));
      }, seconds * 1000);
      const waiter = {
        check,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      this.#waiters.push(waiter);
    });
  }
}

/** A running operator of a test. */
export interface RunningOperator {
  /** Stop it gracefully and wait for the end. */
  stop(): Promise<void>;
  /** Settles when the operator ends. */
  readonly done: Promise<void>;
}

/** A fresh registry that logs in to the cluster. */
export function clusterRegistry(cluster: FakeCluster): OperatorRegistry {
  const registry = new OperatorRegistry({ onWarning: () => {} });
  on.login({ registry, id: "test-login" }, () => cluster.connectionInfo);
  return registry;
}

/** How long an operator of a test may take to become ready before the test fails. */
const READY_TIMEOUT_MS = 20_000;

/** How long an operator of a test may take to stop gracefully before the test fails. */
const STOP_TIMEOUT_MS = 20_000;

/** Start an operator and wait until it serves (failing after {@link READY_TIMEOUT_MS}). */
export async function startOperator(
  registry: OperatorRegistry,
  options: Partial<OperatorOptions> = {},
): Promise<RunningOperator> {
  const controller = new AbortController();
  let ready!: () => void;
  const readiness = new Promise<void>((resolve) => (ready = resolve));
  const done = operator({
    registry,
    settings: testSettings(),
    namespaces: ["default"],
    standalone: true,
    ...options,
    signal: controller.signal,
    onReady: ready,
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), READY_TIMEOUT_MS);
  });
  const outcome = await Promise.race([readiness, done, timeout]).finally(() => clearTimeout(timer));
  if (outcome === "timeout") {
    controller.abort();
    let stopTimer: ReturnType<typeof setTimeout> | undefined;
    const stopped = new Promise<void>((
      resolve,
    ) => (stopTimer = setTimeout(resolve, STOP_TIMEOUT_MS)));
    await Promise.race([done.catch(() => undefined), stopped]).finally(() =>
      clearTimeout(stopTimer)
    );
    throw new Error(`The operator was not ready within ${READY_TIMEOUT_MS / 1000}s.`);
  }
  return {
    done,
    stop: async () => {
      controller.abort();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`The operator did not stop within ${STOP_TIMEOUT_MS / 1000}s.`)),
          STOP_TIMEOUT_MS,
        );
      });
      await Promise.race([done, late]).finally(() => clearTimeout(timer));
    },
  };
}

/** Start a fake cluster with the KopfExample CRD. */
export async function startCluster(
  options: { status?: boolean; keyedConditions?: boolean } = {},
): Promise<FakeCluster> {
  const cluster = await FakeCluster.start();
  cluster.create(kexCrd(options));
  return cluster;
}

/** An API client of the cluster, with its own credentials (dispose of it after use). */
export function apiClientOf(cluster: FakeCluster): ApiClient {
  const vault = new Vault();
  vault.populate({ test: cluster.connectionInfo });
  return new ApiClient(vault);
}

/** The PATCH requests made to KopfExample objects so far. */
export function patchesOf(cluster: FakeCluster, name?: string): string[] {
  return cluster.requests
    .filter((r) => r.method === "PATCH" && r.path.includes("/kopfexamples/"))
    .filter((r) => name === undefined || r.path.split("/").includes(name))
    .map((r) => r.path);
}

/** Run `body` while an operator serves; the operator is stopped afterwards in any case. */
export async function whileRunning(
  registry: OperatorRegistry,
  body: () => Promise<void>,
  options: Partial<OperatorOptions> = {},
): Promise<void> {
  const op = await startOperator(registry, options);
  try {
    await body();
  } finally {
    await op.stop();
  }
}

/** A TCP port free right now on 127.0.0.1 (for endpoints that need one known beforehand). */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** Kopf's diff-base annotation. */
export const DIFFBASE = "kopf.zalando.org/last-handled-configuration";

/** Kopf's default finalizer. */
export const FINALIZER = "kopf.zalando.org/KopfFinalizerMarker";

/**
 * The status as Kopf writes it (the handlers' results, the storages' records): without the
 * standard conditions and `status.observedGeneration` (docs/conditions.md), which tests of
 * other things leave to tests/operator/conditions_test.ts; `undefined` if nothing else is in it.
 */
export function kopfStatus(body: RawBody | undefined): Record<string, unknown> | undefined {
  const status = body?.status as Record<string, unknown> | undefined;
  if (status === undefined) return undefined;
  const { conditions: _conditions, observedGeneration: _observed, ...rest } = status;
  return Object.keys(rest).length > 0 ? rest : undefined;
}

/** Whether a cycle has finished for the object: its diff-base is stored. */
export function handled(body: RawBody | undefined): boolean {
  return body?.metadata?.annotations?.[DIFFBASE] !== undefined;
}

/** A cluster with KopfExamples, the peering CRDs of examples/peering.yaml and, unless told not to, the default KopfPeering. */
export async function peeringCluster(options: { object?: boolean } = {}): Promise<FakeCluster> {
  const cluster = await startCluster();
  const manifest = await Deno.readTextFile(new URL("../../examples/peering.yaml", import.meta.url));
  for (const document of parseAllDocuments(manifest)) cluster.create(document.toJSON());
  if (options.object ?? true) {
    cluster.create({
      apiVersion: "kopf.dev/v1",
      kind: "KopfPeering",
      metadata: { namespace: "default", name: "default" },
    });
  }
  return cluster;
}
