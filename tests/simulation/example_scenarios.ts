/**
 * A scenario for each example that runs as an operator file alone (`kopf run
 * examples/NN/example.ts`): the object of examples/obj.yaml created, its field patched,
 * and deleted, and invariants that say what the example's comment says it does, read from
 * the cluster: what lasts (the object's status, its existence, other objects), and what
 * the handlers' log lines posted as Events (`eventInvariants`). A crash loses the Events
 * not posted yet (they are posted from memory after the fact, as in Kopf), so those are
 * checked only in runs without crashes. Not here: 02-children and
 * 10-builtins (their handlers use @kubernetes/client-node, whose HTTP reaches no simulated
 * cluster), 12-embedded (a program, not an operator file), 17-admission (a webhook server).
 */
import { parse } from "yaml";
import type { JsonObject, RawBody } from "../../mod.ts";
import type { Invariant, Simulation } from "../../src/testing/mod.ts";
import { CRD, KEX } from "./kopf_examples.ts";
import type { ScenarioModule } from "../testing/simulation/scenario_modules.ts";

/** examples/obj.yaml, parsed. */
const OBJ = parse(
  await Deno.readTextFile(new URL("../../examples/obj.yaml", import.meta.url)),
) as RawBody;

/** The name of the object in examples/obj.yaml. */
const NAME = String(OBJ.metadata?.name);

/** The messages of the Events about the example's object. */
function eventsOf(sim: Simulation, name = NAME): string[] {
  return sim.cluster.list("events", { namespace: "default" })
    .filter((e) => (e.involvedObject as { name?: string } | undefined)?.name === name)
    .map((e) => String(e.message));
}

/** The example's object as it is now. */
function object(sim: Simulation): RawBody | undefined {
  return sim.cluster.get(KEX, NAME, { namespace: "default" });
}

/** An invariant that the Events about the object hold each text, and none of the others. */
function told(texts: readonly string[], never: readonly string[] = []): Invariant {
  return function eventsTell(sim) {
    const events = eventsOf(sim);
    const missing = texts.filter((t) => !events.some((e) => e.includes(t)));
    const wrong = never.filter((t) => events.some((e) => e.includes(t)));
    if (missing.length + wrong.length === 0) return undefined;
    return [
      ...missing.map((t) => `no Event tells "${t}"`),
      ...wrong.map((t) => `an Event tells "${t}"`),
    ].join("; ");
  };
}

/** An invariant that the object is gone. */
function gone(sim: Simulation): string | undefined {
  return object(sim) === undefined ? undefined : `${NAME} still exists`;
}

interface Steps {
  /** Patch `spec.field` to "changed" after this many seconds. */
  readonly patchAfter?: number;
  /** Delete the object after this many seconds (after the patch). */
  readonly deleteAfter?: number;
  /** Then wait this many seconds. */
  readonly then?: number;
  /** Done before the object is created. */
  readonly before?: (sim: Simulation) => void;
}

/** The object of examples/obj.yaml created, maybe patched, maybe deleted. */
function lifecycle(steps: Steps): ScenarioModule["scenario"] {
  return async (sim) => {
    steps.before?.(sim);
    sim.cluster.create(structuredClone(OBJ));
    if (steps.patchAfter !== undefined) {
      await sim.sleep(steps.patchAfter);
      sim.cluster.patch(KEX, NAME, { spec: { field: "changed" } } as JsonObject, {
        namespace: "default",
      });
    }
    if (steps.deleteAfter !== undefined) {
      await sim.sleep(steps.deleteAfter);
      sim.cluster.delete(KEX, NAME, { namespace: "default" });
    }
    await sim.sleep(steps.then ?? 30);
  };
}

/** A running pod in `default`, as the index of 16-indexing reads it. */
function pod(name: string, labels: Record<string, string>): RawBody {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "default", labels },
    spec: { containers: [{ name: "main", image: "busybox" }] },
  };
}

/** An example's scenario: a scenario module, and the invariants over its Events. */
export interface ExampleScenario extends ScenarioModule {
  /** What the Events must tell: checked in runs without crashes only. */
  readonly eventInvariants?: readonly Invariant[];
}

/** The creation was handled to its end: the object's diff-base annotation is written. */
function handled(sim: Simulation): string | undefined {
  const annotations = object(sim)?.metadata?.annotations ?? {};
  return "kopf.zalando.org/last-handled-configuration" in annotations
    ? undefined
    : `${NAME} has no last-handled configuration`;
}

function example(folder: string, module: Omit<ExampleScenario, "operator" | "resources">) {
  return {
    ...module,
    operator: `examples/${folder}/example.ts`,
    resources: [CRD],
  } satisfies ExampleScenario;
}

/** The examples' scenarios, by folder. */
export const EXAMPLE_SCENARIOS: Readonly<Record<string, ExampleScenario>> = {
  "01-minimal": example("01-minimal", {
    scenario: lifecycle({}),
    invariants: [function statusSaysHello(sim) {
      const status = object(sim)?.status as { createFn?: { message?: string } } | undefined;
      return status?.createFn?.message === "hello world"
        ? undefined
        : `status.createFn is ${JSON.stringify(status?.createFn)}`;
    }],
  }),
  "03-exceptions": example("03-exceptions", {
    scenario: lifecycle({ then: 60 }),
    invariants: [handled],
    eventInvariants: [told([
      "Handler 'instantFailureWithOnlyAMessage' failed permanently",
      "Handler 'eventualSuccessWithFewMessages' succeeded",
      "Handler 'eventualFailureWithTracebacks' failed",
      "Handler 'instantFailureWithTraceback' failed",
    ])],
  }),
  "04-events": example("04-events", {
    scenario: lifecycle({}),
    invariants: [handled],
    eventInvariants: [function fourEvents(sim) {
      const events = sim.cluster.list("events", { namespace: "default" })
        .filter((e) => e.reason === "SomeReason");
      const types = new Set(events.map((e) => String(e.type)));
      return ["SomeType", "Normal", "Warning", "Error"].every((t) => types.has(t))
        ? undefined
        : `SomeReason Events of the types ${[...types].sort().join(", ")} only`;
    }],
  }),
  "05-handlers": example("05-handlers", {
    scenario: lifecycle({ patchAfter: 20, deleteAfter: 20 }),
    invariants: [gone],
    eventInvariants: [
      told([
        "CREATED 1st",
        "CREATED 2nd",
        "UPDATED",
        "FIELD CHANGED",
        "DELETED 1st",
        "DELETED 2nd",
      ]),
    ],
  }),
  "06-peering": example("06-peering", {
    scenario: lifecycle({}),
    invariants: [handled],
    eventInvariants: [told(["is handled by the operator that has the right of way"])],
  }),
  "07-subhandlers": example("07-subhandlers", {
    scenario: lifecycle({}),
    invariants: [handled],
    eventInvariants: [told(["Handling creation for item1", "Handling creation for item2"])],
  }),
  "08-events": example("08-events", {
    scenario: lifecycle({ patchAfter: 10, deleteAfter: 10 }),
    invariants: [gone],
  }),
  "09-testing": example("09-testing", {
    scenario: lifecycle({ deleteAfter: 20 }),
    invariants: [gone],
    eventInvariants: [told(["Creation event", `Deletion event: ${NAME}`])],
  }),
  "11-filtering-handlers": example("11-filtering-handlers", {
    scenario: lifecycle({ patchAfter: 20 }),
    invariants: [handled],
    eventInvariants: [told(
      [
        "Label is matching.",
        "Label is present.",
        "Label is absent.",
        "Label callback matching.",
        "Annotation is matching.",
        "Annotation is present.",
        "Annotation is absent.",
        "Filter satisfied.",
        "Field value is satisfied.",
        "Field presence is satisfied.",
        "Field change is satisfied.",
        "Field daemon is stopped",
      ],
      [
        "Annotation callback mismatch.",
        "Filter not satisfied.",
        "Field value is not satisfied.",
        "Field presence is not satisfied.",
      ],
    )],
  }),
  "13-hooks": example("13-hooks", {
    // Login credentials that expire every 30 s: the operator logs in again and again.
    // What holds is that it runs and settles: the built-in invariants.
    scenario: lifecycle({ then: 120, before: (sim) => void sim.cluster.create(pod("p", {})) }),
  }),
  "14-daemons": example("14-daemons", {
    scenario: lifecycle({ then: 120 }),
    invariants: [function pollingFinished(sim) {
      const message = (object(sim)?.status as { message?: string } | undefined)?.message;
      return message === "Accompanying is finished."
        ? undefined
        : `status.message is ${JSON.stringify(message)}`;
    }],
  }),
  "15-timers": example("15-timers", {
    scenario: lifecycle({ patchAfter: 20, then: 60 }),
    settle: 120,
    eventInvariants: [told(["Ping from a frequent timer", "Ping from a slower timer"])],
  }),
  "16-indexing": example("16-indexing", {
    scenario: async (sim) => {
      for (const name of ["web-1", "web-2", "idle"]) {
        sim.cluster.create(pod(name, { app: name.startsWith("web") ? "web" : "idle" }));
      }
      for (const name of ["web-1", "web-2"]) {
        sim.cluster.patch("pods", name, { status: { phase: "Running" } }, {
          subresource: "status",
        });
      }
      await lifecycle({ then: 60 })(sim);
    },
    invariants: [function runningPodsKept(sim) {
      const running = (object(sim)?.status as { runningPods?: string[] } | undefined)
        ?.runningPods;
      return JSON.stringify(running) === JSON.stringify(["web-1", "web-2"])
        ? undefined
        : `status.runningPods is ${JSON.stringify(running)}`;
    }],
  }),
  "99-all-at-once": example("99-all-at-once", {
    scenario: lifecycle({ patchAfter: 20, then: 30 }),
    invariants: [function allDone(sim) {
      const status = (object(sim)?.status ?? {}) as Record<string, Record<string, unknown>>;
      const problems = [];
      if (status.create1?.["job1-status"] !== 100) problems.push("no job1-status");
      if (status.create2?.["job2-status"] !== 100) problems.push("no job2-status");
      const podName = status.createPod?.pod;
      const made = sim.cluster.get("pods", String(podName));
      if (made?.metadata?.labels?.application !== "kopf-example-99") {
        problems.push(`no pod ${podName} labelled as the example's`);
      }
      return problems.length ? problems.join("; ") : undefined;
    }],
  }),
};
