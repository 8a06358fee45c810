/**
 * What must hold once a simulated run has settled, whatever happened on the way: the
 * built-in invariants, and how any invariant (the user's own too) is asked.
 *
 * @module
 */
import type { RawBody } from "../../structs/bodies.ts";
import type { Invariant, Simulation } from "./simulation_types.ts";

/** An object as the built-in invariants name it, e.g. `configmaps default/a`. */
function nameOf(typeKey: string, body: RawBody): string {
  const plural = typeKey.startsWith("/")
    ? typeKey.slice(1)
    : typeKey.split("/").reverse().join(".");
  const meta = body.metadata ?? {};
  const where = meta.namespace ? `${meta.namespace}/${meta.name}` : String(meta.name);
  return `${plural} ${where}`;
}

/** Whether a value is a handler's progress record (as Kopf persists it). */
function isProgress(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) &&
    "started" in value && ("retries" in value || "success" in value || "failure" in value);
}

/** A progress record that is neither a success nor a failure: the handler is not done. */
function pending(record: Record<string, unknown>): boolean {
  return record.success !== true && record.failure !== true;
}

/** The handlers of an object whose progress says they are not done, as `id (retries: n)`. */
function pendingHandlers(body: RawBody): string[] {
  const found: string[] = [];
  for (const [key, text] of Object.entries(body.metadata?.annotations ?? {})) {
    if (typeof text !== "string" || !text.startsWith("{")) continue;
    try {
      const record = JSON.parse(text) as unknown;
      if (isProgress(record) && pending(record)) {
        found.push(`${key.replace(/^[^/]*\//, "")} (retries: ${record.retries ?? 0})`);
      }
    } catch {
      // Not a progress record.
    }
  }
  const status = (body as { status?: { kopf?: { progress?: Record<string, unknown> } } }).status;
  for (const [id, record] of Object.entries(status?.kopf?.progress ?? {})) {
    if (isProgress(record) && pending(record)) {
      found.push(`${id} (retries: ${record.retries ?? 0})`);
    }
  }
  return found;
}

/** The objects of the cluster, as the built-in invariants read them. */
export type ObjectsOfCluster = () => readonly { typeKey: string; object: RawBody }[];

/**
 * The built-in invariants over the objects of the cluster: no object is stuck deleting,
 * no handler is left retrying, and every object's handlers have seen its last spec.
 */
export function builtinInvariants(objects: ObjectsOfCluster): readonly NamedInvariant[] {
  return [
    {
      name: "no object stuck deleting",
      check: () => {
        const stuck = objects().filter(({ object }) => object.metadata?.deletionTimestamp);
        if (stuck.length === 0) return undefined;
        return stuck.map(({ typeKey, object }) =>
          `${
            nameOf(typeKey, object)
          } has been deleting since ${object.metadata?.deletionTimestamp}` +
          `, held by the finalizers ${JSON.stringify(object.metadata?.finalizers ?? [])}`
        ).join("; ");
      },
    },
    {
      name: "no handler left retrying",
      check: () => {
        const left = objects().flatMap(({ typeKey, object }) => {
          const handlers = pendingHandlers(object);
          return handlers.length === 0
            ? []
            : [`${nameOf(typeKey, object)}: ${handlers.join(", ")} not done`];
        });
        return left.length === 0 ? undefined : left.join("; ");
      },
    },
    {
      name: "handlers saw the last spec",
      check: () => {
        const behind = objects().flatMap(({ typeKey, object }) => {
          const seen = lastHandledSpec(object);
          if (seen === undefined) return [];
          const spec = (object as { spec?: unknown }).spec;
          return sameJson(seen.spec, spec) ? [] : [
            `${nameOf(typeKey, object)}: its handlers last saw the spec ${
              JSON.stringify(seen.spec ?? null)
            }, not ${JSON.stringify(spec ?? null)}`,
          ];
        });
        return behind.length === 0 ? undefined : behind.join("; ");
      },
    },
  ];
}

/** The essence an object's handlers last handled, from its annotation (Kopf's default). */
function lastHandledSpec(body: RawBody): { spec?: unknown } | undefined {
  for (const [key, text] of Object.entries(body.metadata?.annotations ?? {})) {
    if (!key.endsWith("/last-handled-configuration") || typeof text !== "string") continue;
    try {
      const essence = JSON.parse(text) as { spec?: unknown };
      return typeof essence === "object" && essence !== null ? essence : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** Whether two JSON values are equal, whatever the order of their keys. */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) {
    // An absent spec and an empty one are the same to an essence.
    return isEmpty(a) && isEmpty(b);
  }
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((item, i) => sameJson(item, other[i]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(left), ...Object.keys(right)]);
  for (const key of keys) if (!sameJson(left[key], right[key])) return false;
  return true;
}

function isEmpty(value: unknown): boolean {
  return value === undefined || value === null ||
    (typeof value === "object" && Object.keys(value as object).length === 0);
}

/** An invariant with the name a failure reports it by. */
export interface NamedInvariant {
  readonly name: string;
  readonly check: Invariant;
}

/** The user's invariants, named by their functions' names (or their place). */
export function named(invariants: readonly Invariant[]): NamedInvariant[] {
  return invariants.map((check, i) => ({ name: check.name || `invariant #${i + 1}`, check }));
}

/** The message of the first broken invariant, with its name; `undefined` if all hold. */
export async function firstBroken(
  invariants: readonly NamedInvariant[],
  sim: Simulation,
): Promise<{ name: string; message: string } | undefined> {
  for (const { name, check } of invariants) {
    let message: string | undefined | void;
    try {
      message = await check(sim);
    } catch (error) {
      message = `it threw: ${error instanceof Error ? error.message : String(error)}`;
    }
    if (typeof message === "string" && message !== "") return { name, message };
  }
  return undefined;
}
