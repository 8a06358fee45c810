/**
 * Applying what a handling cycle accumulated to the object, in as few requests as
 * possible:
 *
 * - the status goes through the `/status` subresource when the resource has one (the main
 *   endpoint ignores the status there); otherwise everything goes in one request;
 * - without finalizer changes, the rest is one JSON merge patch;
 * - with finalizer changes, the rest and the finalizer change are one JSON Patch guarded
 *   by a `test` of `/metadata/resourceVersion`, so that other parties' finalizers are never
 *   clobbered; if the object has changed meanwhile (409/422), nothing is applied and the
 *   caller waits for the next event, which brings the newer state;
 * - an object watched as metadata only gets metadata-only answers (its whole body is never
 *   needed here), and with a finalizer change, what lies outside its metadata is merged in a
 *   request of its own first (JSON Patch operations made against a body without those fields
 *   would replace them whole);
 * - an object that is gone (404) is not an error: there is nothing left to patch;
 * - what the API server would refuse for its size (annotations over 256 KB in total, an
 *   object over what etcd stores) is not sent (see `outcome_sizes.ts`).
 *
 * With `serverSideApply` (`settings.applying.outcomes`), each place written -- the status
 * subresource, the object -- gets one server-side apply under the operator's field manager
 * instead, the finalizer in it (a set: other parties' finalizers are theirs, no guard is
 * needed); see `apply_intents.ts` for what is stated. Only what an apply cannot remove (a
 * field not ours alone) follows as a patch.
 *
 * @module
 */

import type { BodySource, JsonObject, JsonValue, RawBody } from "../structs/bodies.ts";
import { isMapping } from "../structs/dicts.ts";
import { type JsonPatchOperation, mergePatchChanges, Patch } from "../structs/patches.ts";
import type { Resource } from "../structs/resources.ts";
import { isAppliedBy, managedEntries, type ManagedFieldsEntry } from "../structs/owned_fields.ts";
import type { ApiClient } from "../client/api.ts";
import {
  APIClientError,
  APIConflictError,
  APIError,
  APINotFoundError,
  APITooManyRequestsError,
  APIUnauthorizedError,
  APIUnprocessableError,
} from "../client/api_errors.ts";
import { patchForAnswer, type PatchOptions } from "../client/objects.ts";
import type { ObjectAnswer } from "../client/object_answers.ts";
import { readSameObjectOrFail } from "../client/same_objects.ts";
import { asResourceObject } from "../structs/metadata_only_bodies.ts";
import { checkSizes, OutcomeTooLargeError } from "./outcome_sizes.ts";
import { applyIntent } from "./apply_intents.ts";

/** A change of our finalizer on the object. */
export type FinalizerChange = "add" | "remove";

/** What to apply, and where. */
export interface ApplyChangesOptions {
  /** The API client. */
  readonly api: ApiClient;
  /** The object's resource (its subresources decide where the status goes). */
  readonly resource: Resource;
  /** The object as last seen (the base of JSON Patch operations). */
  readonly body: RawBody;
  /**
   * For an object known by its metadata only: where its whole object is read. Its requests
   * then ask for metadata-only answers too (the whole body is never needed here).
   */
  readonly source?: BodySource;
  /** The accumulated changes. */
  readonly patch: Patch;
  /** Our finalizer. */
  readonly finalizer: string;
  /** Whether to add or remove our finalizer, if at all. */
  readonly finalizerChange?: FinalizerChange;
  /** The field manager of the requests; none: the API server names it by the User-Agent. */
  readonly fieldManager?: string;
  /** Send the changes by server-side apply under `fieldManager` (`apply_intents.ts`). */
  readonly serverSideApply?: boolean;
  /** Cancels the requests. */
  readonly signal?: AbortSignal;
}

/** What came of applying. */
export interface ApplyResult {
  /**
   * The object as returned by the last successful request, if any was made: parsed when first
   * read (most writes need only its {@link version}).
   */
  readonly body: RawBody | undefined;
  /** The `resourceVersion` the last successful request produced, if any was made. */
  readonly version: string | undefined;
  /**
   * The `resourceVersion` each successful request made, in order: the states our own writes
   * made, whose watch events are our echoes. "" for an answer without one, and for a write
   * that changed nothing of the state processed (the version answered is not its own).
   */
  readonly versions: readonly string[];
  /** How many write requests (patches and applies) were made: what `kopf_patches_total` counts. */
  readonly requests: number;
  /** The object no longer exists. */
  readonly gone: boolean;
  /** The guarded request was refused because the object changed meanwhile. */
  readonly conflict: boolean;
}

/** The JSON Patch operations that add or remove our finalizer. */
export function finalizerOperations(
  body: RawBody,
  finalizer: string,
  change: FinalizerChange,
): JsonPatchOperation[] {
  const finalizers = body.metadata?.finalizers;
  if (change === "add") {
    if (Array.isArray(finalizers)) {
      if (finalizers.includes(finalizer)) return [];
      return [{ op: "add", path: "/metadata/finalizers/-", value: finalizer }];
    }
    return [{ op: "add", path: "/metadata/finalizers", value: [finalizer] }];
  }
  const index = Array.isArray(finalizers) ? finalizers.indexOf(finalizer) : -1;
  if (index < 0) return [];
  const path = `/metadata/finalizers/${index}`;
  return [{ op: "test", path, value: finalizer }, { op: "remove", path }];
}

/**
 * Whether storing failed because the API server refused what was sent, for good: a 4xx
 * other than 404 (gone), 409 (a conflict: a newer state comes), 401 (credentials) and
 * 429 (throttling), or a size it would refuse. Sending the same again would fail again.
 */
export function isRefusedOutcome(error: unknown): boolean {
  if (error instanceof OutcomeTooLargeError) return true;
  return error instanceof APIClientError && !(error instanceof APINotFoundError) &&
    !(error instanceof APIConflictError) && !(error instanceof APIUnauthorizedError) &&
    !(error instanceof APITooManyRequestsError);
}

/** No JSON Patch operations. */
const NO_OPERATIONS: readonly JsonPatchOperation[] = Object.freeze([]);

/** Whether a merge patch sets anything outside `metadata`. */
function beyondMetadata(merge: Record<string, unknown>): boolean {
  return Object.keys(merge).some((key) => key !== "metadata");
}

/** Apply the changes; see the module docs for how they are split into requests. */
export async function applyChanges(options: ApplyChangesOptions): Promise<ApplyResult> {
  const { resource, body } = options;
  const whole = options.patch.toMergePatch() as Record<string, unknown>;
  checkSizes(body, whole, resource);
  let status: JsonValue | undefined;
  let merge = whole;
  if (resource.has("status") && whole.status !== undefined) {
    // A copy without it: \`delete\` would turn the patch into a dictionary, slow to go on with.
    const { status: toStatus, ...rest } = whole;
    status = toStatus as JsonValue;
    merge = rest;
  }
  const sender = new Sender(options);
  if (options.serverSideApply) return await applyIntents(sender, options, status, merge);
  const finalizerOps: readonly JsonPatchOperation[] = options.finalizerChange === undefined
    ? NO_OPERATIONS
    : finalizerOperations(body, options.finalizer, options.finalizerChange);
  try {
    await sendPatches(sender, body, status, merge, finalizerOps);
  } catch (error) {
    return settled(sender, error, finalizerOps.length > 0);
  }
  return applied(sender, false, false);
}

/** What a failure comes to: the object gone, or the guarded change refused; else thrown. */
function settled(sender: Sender, error: unknown, guarded: boolean): ApplyResult {
  if (error instanceof APINotFoundError || isNamesake(error)) {
    return applied(sender, true, false);
  }
  const refused = error instanceof APIConflictError || error instanceof APIUnprocessableError;
  if (refused && guarded) return applied(sender, false, true);
  throw error;
}

/**
 * The requests of one object: their target, field manager and answers -- metadata-only ones
 * for an object watched as metadata only (its whole body is never needed here, and may be
 * large) -- counted, the latest answer kept.
 */
class Sender {
  readonly source: BodySource | undefined;
  latest: ObjectAnswer | undefined;
  /** The writes sent. */
  requests = 0;
  /** The writes answered, in order: what tells `ApplyResult.versions` when it is asked. */
  readonly writes: AnsweredWrite[] = [];
  readonly #options: ApplyChangesOptions;
  readonly #ref: { name: string; namespace?: string };

  constructor(options: ApplyChangesOptions) {
    this.#options = options;
    this.source = options.source;
    const meta = options.body.metadata;
    this.#ref = { name: meta?.name ?? "", namespace: meta?.namespace };
  }

  async send(patch: JsonObject | readonly JsonPatchOperation[], options: PatchOptions) {
    const { api, resource, signal, fieldManager } = this.#options;
    const source = this.source;
    this.requests++;
    // Keys set after the copy, not after a spread in its literal: each such key would be
    // defined by a call into V8's runtime, for every write.
    const request: PatchOptions = { fieldManager, ...options };
    request.metadataOnly = source !== undefined;
    request.signal = signal;
    const answer = await patchForAnswer(api, resource, this.#ref, patch, request);
    // A metadata-only answer is small: made a resource's object at once.
    const body = source === undefined ? undefined : answer.body;
    if (body !== undefined) asResourceObject(body, resource.apiVersion, resource.kind);
    this.latest = answer;
    this.writes.push({ patch, options, version: answer.resourceVersion ?? "" });
  }

  /**
   * The versions our writes made, in order: "" for an answer without one, and for a write
   * that changes nothing of the state processed -- it makes no version of its own, and the
   * one answered may be another writer's, made since (an echo of ours it is not).
   */
  versions(): string[] {
    const metadataOnly = this.source !== undefined;
    return this.writes.map(({ patch, options, version }) =>
      makesVersion(this.#options.body, patch, options, metadataOnly) ? version : ""
    );
  }

  /**
   * The whole object, when it is watched as metadata only (a read: not counted as a write);
   * a 404 if it is gone, a namesake made since included.
   */
  async read(): Promise<RawBody> {
    const { api, resource, body, signal } = this.#options;
    return await readSameObjectOrFail(api, resource, body, { signal });
  }
}

/**
 * Whether a write changes the state processed, so that the version answered is the one it
 * made: a merge patch that sets what the state holds already changes nothing there, and the
 * server answers the object's current version -- another writer's, if one wrote meanwhile.
 * JSON Patches (guarded by the state's finalizers) change it; server-side applies, and merge
 * patches beyond the metadata of a state watched as metadata only, are not told apart and
 * count as not.
 */
function makesVersion(
  body: RawBody,
  patch: JsonObject | readonly JsonPatchOperation[],
  options: PatchOptions,
  metadataOnly: boolean,
): boolean {
  if (Array.isArray(patch)) return true;
  if (options.type !== undefined && options.type !== "merge") return false;
  const merge = patch as JsonObject;
  // A state watched as metadata only does not show what a patch beyond it would change.
  if (metadataOnly && beyondMetadata(merge)) return false;
  return mergePatchChanges(body, merge);
}

/** The status (to its subresource), the rest merged, our finalizer by a guarded JSON Patch. */
async function sendPatches(
  sender: Sender,
  body: RawBody,
  status: JsonValue | undefined,
  merge: Record<string, unknown>,
  finalizerOps: readonly JsonPatchOperation[],
): Promise<void> {
  if (status !== undefined) {
    await sender.send(withUid(body, { status }), { subresource: "status" });
  }
  // JSON Patch operations are made against the body: one without the fields the merge
  // patch sets would replace them whole. Merged apart, then the finalizer's change alone.
  let guarded: Record<string, unknown> = merge;
  if (finalizerOps.length > 0 && sender.source !== undefined && beyondMetadata(merge)) {
    await sender.send(withUid(body, merge), {});
    guarded = {};
  }
  if (finalizerOps.length > 0) {
    const version = sender.latest?.resourceVersion ?? body.metadata?.resourceVersion;
    const ops: JsonPatchOperation[] = [
      ...(version === undefined
        ? []
        : [{ op: "test" as const, path: "/metadata/resourceVersion", value: version }]),
      ...new Patch(guarded).toJsonPatch(body),
      ...finalizerOps,
    ];
    await sender.send(ops, { type: "json" });
  } else if (Object.keys(merge).length > 0) {
    await sender.send(withUid(body, merge), {});
  }
}

/**
 * A merge patch that names the object's uid: sent to a namesake made under its name since,
 * it is refused (422: `metadata.uid` is immutable, apimachinery's ValidateObjectMetaUpdate)
 * instead of writing one object's outcome onto another. The status subresource of a custom
 * resource ignores the uid (the API server keeps the stored metadata there).
 */
function withUid(body: RawBody, merge: Record<string, unknown>): JsonObject {
  const uid = body.metadata?.uid;
  if (uid === undefined) return merge as JsonObject;
  // Keys set after the copies rather than after spreads in literals (see Sender.send()).
  const metadata: Record<string, unknown> = isMapping(merge.metadata) ? { ...merge.metadata } : {};
  metadata.uid = uid;
  const out: Record<string, unknown> = { ...merge };
  out.metadata = metadata;
  return out as JsonObject;
}

/**
 * The changes by server-side apply (see `apply_intents.ts`): the status to its subresource,
 * the rest (and our finalizer) to the object, each as the manager's whole intent for it; then
 * what leaving out cannot remove, by patches. The configurations carry the object's uid: an
 * object deleted meanwhile is not made anew by our apply (409), nor is a namesake written
 * in its stead (422); both mean that the object we handled is gone.
 */
async function applyIntents(
  sender: Sender,
  options: ApplyChangesOptions,
  status: JsonValue | undefined,
  merge: Record<string, unknown>,
): Promise<ApplyResult> {
  const { body, resource, fieldManager = "", finalizerChange } = options;
  const change = finalizerChange === undefined
    ? undefined
    : { name: options.finalizer, change: finalizerChange };
  const entries = managedEntries(body);
  const sendsMain = Object.keys(merge).length > 0 || change !== undefined;
  const apply = { type: "apply" as const, fieldManager, force: true };
  let leftover: JsonObject = {};
  let finalizerLeft = false;
  try {
    const whole = sender.source !== undefined &&
        needsWhole(entries, fieldManager, status !== undefined, sendsMain)
      ? await sender.read()
      : body;
    const identity = identityOf(whole, resource);
    if (status !== undefined) {
      const place = "status";
      const intent = applyIntent({ body: whole, entries, fieldManager, place, merge: { status } });
      await sender.send(configOf(identity, intent.config), { ...apply, subresource: place });
      leftover = intent.leftover;
    }
    if (sendsMain) {
      const place = "object";
      const finalizer = change;
      const intent = applyIntent({ body: whole, entries, fieldManager, place, merge, finalizer });
      await sender.send(configOf(identity, intent.config), apply);
      leftover = { ...intent.leftover, ...leftover };
      finalizerLeft = intent.finalizerLeft;
    }
  } catch (error) {
    if (await isGone(sender, error)) {
      return applied(sender, true, false);
    }
    throw error;
  }
  if (Object.keys(leftover).length === 0 && !finalizerLeft) {
    return applied(sender, false, false);
  }
  // What leaving out cannot remove, removed against the object as the applies left it.
  const latest = sender.latest?.body ?? body;
  const ops = finalizerLeft
    ? finalizerOperations(latest, options.finalizer, "remove")
    : NO_OPERATIONS;
  const { status: leftStatus, ...leftMain } = leftover;
  const split = resource.has("status");
  try {
    await sendPatches(
      sender,
      latest,
      split ? leftStatus : undefined,
      split ? leftMain : leftover,
      ops,
    );
  } catch (error) {
    return settled(sender, error, ops.length > 0);
  }
  return applied(sender, false, false);
}

/** What identifies the object in an applied configuration: its uid guards against namesakes. */
interface Identity {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: JsonObject;
}

function identityOf(body: RawBody, resource: Resource): Identity {
  const { name = "", namespace, uid } = body.metadata ?? {};
  const metadata: JsonObject = { name };
  if (namespace !== undefined) metadata.namespace = namespace;
  if (uid !== undefined) metadata.uid = uid;
  return {
    apiVersion: body.apiVersion ?? resource.apiVersion,
    kind: body.kind || resource.kind,
    metadata,
  };
}

function configOf(identity: Identity, config: JsonObject): JsonObject {
  const meta = config.metadata as JsonObject | undefined;
  return { ...identity, ...config, metadata: { ...identity.metadata, ...meta } };
}

/**
 * Whether the object must be read whole before applying: it is watched as metadata only,
 * and the manager owns fields beyond its metadata in a place applied to -- their values
 * must be stated again, or the apply would remove them.
 */
function needsWhole(
  entries: readonly ManagedFieldsEntry[],
  fieldManager: string,
  status: boolean,
  object: boolean,
): boolean {
  return entries.some((entry) => {
    if (status && isAppliedBy(entry, fieldManager, "status")) return true;
    if (!object || !isAppliedBy(entry, fieldManager)) return false;
    return Object.keys(entry.fields).some((element) => element !== "f:metadata");
  });
}

/** Whether a write was refused for the uid it named: another object has the name now. */
function isNamesake(error: unknown): boolean {
  return error instanceof APIUnprocessableError &&
    causesOf(error).some((cause) => cause.field === "metadata.uid");
}

/** The causes an API error's `Status` lists (none if it is no API error). */
function causesOf(error: unknown): Record<string, unknown>[] {
  const causes = error instanceof APIError ? error.details?.causes : undefined;
  return Array.isArray(causes) ? (causes as unknown[]).filter(isMapping) : [];
}

/**
 * Whether an apply's failure means that the object we handled is gone: a 404; or a 409
 * that is no field manager's conflict (a uid of an object that no longer exists), or a 422
 * of `metadata.uid` (a namesake made anew) -- confirmed by reading, since a 409 may also be
 * the API server giving up under contention.
 */
async function isGone(sender: Sender, error: unknown): Promise<boolean> {
  if (error instanceof APINotFoundError) return true;
  const suspect = error instanceof APIConflictError
    ? !causesOf(error).some((cause) => cause.type === "FieldManagerConflict")
    : isNamesake(error);
  if (!suspect) return false;
  try {
    await sender.read();
    return false;
  } catch (reading) {
    if (reading instanceof APINotFoundError) return true;
    throw error;
  }
}

function applied(sender: Sender, gone: boolean, conflict: boolean): ApplyResult {
  return new Applied(sender, gone, conflict);
}

/** One write's patch, as sent, and the version its answer gave. */
interface AnsweredWrite {
  readonly patch: JsonObject | readonly JsonPatchOperation[];
  readonly options: PatchOptions;
  readonly version: string;
}

/**
 * An {@link ApplyResult} whose body is the last answer's, parsed when first read, and whose
 * versions are told when first asked (only a processing that may pass its echoes by asks).
 */
class Applied implements ApplyResult {
  readonly answer: ObjectAnswer | undefined;
  readonly requests: number;
  readonly #sender: Sender;
  #versions: readonly string[] | undefined;

  constructor(sender: Sender, readonly gone: boolean, readonly conflict: boolean) {
    this.answer = sender.latest;
    this.requests = sender.requests;
    this.#sender = sender;
  }

  get body(): RawBody | undefined {
    return this.answer?.body;
  }

  get version(): string | undefined {
    return this.answer?.resourceVersion;
  }

  get versions(): readonly string[] {
    return this.#versions ??= this.#sender.versions();
  }
}
