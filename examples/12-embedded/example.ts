/**
 * Embedding: an operator inside a program that has work of its own. The program starts the
 * operator with `kopf.spawnTasks()` (it returns at once), waits until it serves, then does
 * its own steps — here, creating and deleting objects through the API client — while the
 * operator handles them beside it; at the end it stops the operator gracefully. Both share
 * the process's memory: the program waits for what the operator has seen, not for a time.
 *
 *   deno run --allow-all examples/12-embedded/example.ts      # KUBECONFIG, ~/.kube/config
 *
 * (`kopf run` is not for this file: it is a program of its own.)
 */
import { type ConnectionInfo, kopf } from "../../mod.ts";
import { ApiClient, createObject, deleteObject, Vault } from "../../src/client/mod.ts";

/** The operator's handlers, on a registry of the program's own. */
const registry = new kopf.OperatorRegistry();

/** What the operator knows, for the program to read: the examples that exist now. */
export const known: Set<string> = new Set();
const changes = new EventTarget();

kopf.on.create("kopfexamples", { registry }, function createFn({ name, logger }) {
  known.add(name);
  changes.dispatchEvent(new Event("change"));
  logger.info("The operator has seen the object.");
});

kopf.on.delete("kopfexamples", { registry }, function deleteFn({ name, logger }) {
  known.delete(name);
  changes.dispatchEvent(new Event("change"));
  logger.info("The operator has seen the object go.");
});

/** Wait until what the operator knows satisfies the check. */
function until(check: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    if (check()) return resolve();
    const listener = () => {
      if (!check()) return;
      changes.removeEventListener("change", listener);
      resolve();
    };
    changes.addEventListener("change", listener);
  });
}

const KOPFEXAMPLES = new kopf.Resource({
  group: "kopf.dev",
  version: "v1",
  plural: "kopfexamples",
  kind: "KopfExample",
  namespaced: true,
});

/** Options of {@link main}. */
export interface MainOptions {
  /** How many objects the program creates and deletes, one after another. */
  readonly steps?: number;
  /** Where the program and the operator log in; the kubeconfig or the pod's account by default. */
  readonly login?: () => Promise<ConnectionInfo | undefined>;
  /** Where the program says what it does. */
  readonly print?: (line: string) => void;
}

/** The program: the operator in the background, and the program's own steps. */
export async function main(options: MainOptions = {}): Promise<void> {
  const { steps = 3, print = console.log } = options;
  const login = options.login ?? (() => kopf.loginWithDefaults());

  print("Starting the main app.");
  await using operator = kopf.spawnTasks({
    registry,
    namespaces: ["default"],
    standalone: true,
    defaultLogin: login,
  });
  await operator.ready;

  // The operator serves: the program does its own work meanwhile.
  const vault = new Vault({ relogin: async () => ({ app: await login() }) });
  await using api = new ApiClient(vault);
  for (let step = 0; step < steps; step++) {
    print(`Do the main app activity here. Step ${step + 1}/${steps}.`);
    const name = `kopf-example-${step}`;
    try {
      await createObject(api, KOPFEXAMPLES, {
        apiVersion: "kopf.dev/v1",
        kind: "KopfExample",
        metadata: { name, namespace: "default" },
      });
    } catch (error) {
      if (!(error instanceof kopf.APIConflictError)) throw error; // there already
    }
    await until(() => known.has(name));
    try {
      await deleteObject(api, KOPFEXAMPLES, { name, namespace: "default" });
    } catch (error) {
      if (!(error instanceof kopf.APINotFoundError)) throw error; // gone already
    }
    await until(() => !known.has(name));
  }

  // Ask the operator to stop gracefully (it takes a moment), and wait for it.
  print("Exiting the main app.");
  await operator.stop();
}

if (import.meta.main) {
  kopf.configure({ verbose: true });
  await main();
}
