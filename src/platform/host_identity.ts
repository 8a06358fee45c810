/**
 * Who and where the process runs: the user name, the host name and a pod's name, for
 * naming the operator among its peers. Each is read only when the permission to read it
 * is already granted (never prompting); otherwise a fixed stand-in is used.
 *
 * @module
 */
import os from "node:os";
import { getEnv } from "./process.ts";
import { AsyncContext } from "./async_context.ts";

/** What names this process among its peers. */
export interface HostIdentity {
  /** The pod's name from `POD_ID` (set it from the pod's `metadata.name`), if set. */
  readonly pod: string | undefined;
  /** The user running the process (`USER`), or `unknown`. */
  readonly user: string;
  /** The machine's host name, or `localhost`. */
  readonly host: string;
}

/** Whether Deno already grants a permission (on Node, everything is granted). */
function granted(descriptor: Deno.PermissionDescriptor): boolean {
  if (typeof Deno === "undefined") return true;
  try {
    return Deno.permissions.querySync(descriptor).state === "granted";
  } catch {
    return false;
  }
}

function readEnv(name: "POD_ID" | "USER"): string | undefined {
  if (!granted({ name: "env", variable: name })) return undefined;
  const value = name === "POD_ID" ? getEnv("POD_ID") : getEnv("USER");
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}

function readHostname(): string | undefined {
  try {
    if (typeof Deno !== "undefined") {
      return granted({ name: "sys", kind: "hostname" }) ? Deno.hostname() : undefined;
    }
    return os.hostname();
  } catch {
    return undefined;
  }
}

/** The identity of a simulated process, where one runs (see {@link withHostIdentity}). */
const simulated = new AsyncContext<HostIdentity>();

/**
 * Run `fn` as a process with this identity: a simulation runs several operator processes
 * (replicas, restarts) in one, each as a pod of its own, and none may read the real host
 * (its traces must not depend on the machine).
 */
export function withHostIdentity<R>(identity: HostIdentity, fn: () => R): R {
  return simulated.run(identity, fn);
}

/** The pod, user and host names of this process, as far as the permissions allow. */
export function hostIdentity(): HostIdentity {
  const stand = simulated.get();
  if (stand !== undefined) return stand;
  return {
    pod: readEnv("POD_ID"),
    user: readEnv("USER") ?? "unknown",
    host: readHostname() || "localhost",
  };
}
