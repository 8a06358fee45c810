/**
 * Server-side applies of whole objects on the operator's behalf: which client sends them
 * (the one given, else the operator's own), to which resource (the one given, else the one
 * that serves the body's `apiVersion` and `kind`, by discovery), and under which field
 * manager and force (given, else `settings.applying`).
 *
 * @module
 */
import type { ApiClient } from "../client/api.ts";
import { Discovery } from "../client/discovery.ts";
import { applyObject } from "../client/objects.ts";
import type { RawBody } from "../structs/bodies.ts";
import { UsageError } from "../structs/errors.ts";
import type { HierarchyOptions } from "../structs/object_refs.ts";
import type { Resource } from "../structs/resources.ts";
import { ApplyingSettings, fieldManagerProblem } from "../settings/output_settings.ts";
import { currentOperatorClient, type OperatorClient } from "./operator_client.ts";

/**
 * What a server-side apply is sent with, and where; for `kopf.apply()`, also how the child is
 * adopted first.
 */
export interface ApplyOptions extends Pick<HierarchyOptions, "owner" | "nested"> {
  /**
   * The API client (`@kopf/kopf/client`). By default the operator's own: the client it
   * logged in with, for everything it runs after its login (handlers, daemons, timers).
   * Give one in startup handlers, under `kopf.reconciler()`, and outside an operator.
   */
  readonly api?: ApiClient;
  /**
   * The resource of the object. By default the one that serves the object's `apiVersion`
   * and `kind`, found by discovery (one request per group-version, cached by the client).
   */
  readonly resource?: Resource;
  /** The field manager; by default `settings.applying.fieldManager` (`"kopf"`). */
  readonly fieldManager?: string;
  /**
   * Take over fields that other managers own; by default `settings.applying.force`
   * (`true`). Without it, such a field is an `APIConflictError` (409) naming its manager.
   */
  readonly force?: boolean;
  /** Validate and admit, but do not persist (`dryRun=All`). */
  readonly dryRun?: boolean;
  /** Cancels the request. */
  readonly signal?: AbortSignal;
  /**
   * `kopf.apply()`: make the object a child of the owner first (the default), as `kopf.adopt()`
   * does; `false` applies it as it is (it must have its name, and its namespace or the
   * credentials' default one).
   */
  readonly adopt?: boolean;
}

const DEFAULTS = new ApplyingSettings();

/** The discoveries of clients given explicitly, one per client, for its life. */
const discoveries = new WeakMap<ApiClient, Discovery>();

/**
 * Apply `body` as {@link ApplyOptions} say (the adoption aside); `caller` names the public function
 * in error messages. Returns the object as applied.
 */
export async function applyBody(
  caller: string,
  body: RawBody,
  options: ApplyOptions = {},
): Promise<RawBody> {
  const operator = currentOperatorClient();
  const api = options.api ?? operator?.api;
  if (api === undefined) {
    throw new UsageError(
      `${caller} needs an API client: call it from a handler of a running operator (which ` +
        `uses the operator's own), or pass { api } (an ApiClient of @kopf/kopf/client).`,
    );
  }
  const settings = operator?.settings.applying ?? DEFAULTS;
  const fieldManager = options.fieldManager ?? settings.fieldManager;
  const problem = fieldManagerProblem(fieldManager);
  if (problem !== undefined) {
    throw new UsageError(
      `${caller}: the field manager must be ${problem}; got ${JSON.stringify(fieldManager)}.`,
    );
  }
  const resource = options.resource ??
    await resourceOf(caller, body, discoveryOf(api, operator), options.signal);
  return await applyObject(api, resource, body, {
    fieldManager,
    force: options.force ?? settings.force,
    dryRun: options.dryRun,
    signal: options.signal,
  });
}

/** The resource serving the body's kind, by the discovery of the client used. */
async function resourceOf(
  caller: string,
  body: RawBody,
  discovery: Discovery,
  signal: AbortSignal | undefined,
): Promise<Resource> {
  const { apiVersion, kind } = body;
  if (typeof apiVersion !== "string" || !apiVersion || typeof kind !== "string" || !kind) {
    throw new UsageError(
      `${caller} needs the object's apiVersion and kind (e.g. "v1" and "ConfigMap"), ` +
        `or the { resource } to apply it to; ${describe(body)} has ` +
        `apiVersion ${JSON.stringify(apiVersion)} and kind ${JSON.stringify(kind)}.`,
    );
  }
  const resource = await discovery.resourceOf(apiVersion, kind, signal);
  if (resource === undefined) {
    throw new UsageError(
      `${caller}: the cluster serves no kind ${kind} in ${apiVersion} (for ` +
        `${describe(body)}); check the apiVersion and kind, or install its CRD.`,
    );
  }
  return resource;
}

/** The operator's discovery for its own client; else one per client given. */
function discoveryOf(api: ApiClient, operator: OperatorClient | undefined): Discovery {
  if (operator?.api === api) return operator.discovery;
  let discovery = discoveries.get(api);
  if (discovery === undefined) discoveries.set(api, discovery = new Discovery(api));
  return discovery;
}

function describe(body: RawBody): string {
  const meta = body.metadata ?? {};
  const name = meta.name ? JSON.stringify(meta.name) : "an unnamed object";
  return meta.namespace ? `${name} in ${JSON.stringify(meta.namespace)}` : name;
}
