/**
 * The peering objects and Kopf's format of their records, which this operator shares
 * with Kopf's operators: the resources' groups and plurals, the identities, the records'
 * times, who pauses whom, the keep-alive timing, and the writing of a record.
 *
 * The peering object is a `ClusterKopfPeering` for an operator serving the whole cluster,
 * else a `KopfPeering` in each served namespace (both of the `kopf.dev` group, or of the
 * older `kopf.zalando.org`). Its `status` holds one record per operator, keyed by the
 * operator's identity: `{ priority, lifetime, lastseen }` -- the priority an integer, the
 * lifetime in whole seconds, `lastseen` the UTC time of the last keep-alive as ISO-8601
 * without a zone (as Python's `datetime.utcnow().isoformat()` writes it). A record whose
 * `lastseen + lifetime` has passed belongs to a dead operator; any operator removes such
 * records when it sees them.
 *
 * @module
 */
import type { JsonObject } from "../structs/bodies.ts";
import type { Resource } from "../structs/resources.ts";
import { hostIdentity } from "../platform/host_identity.ts";
import type { ApiClient } from "../client/api.ts";
import { patchObject } from "../client/objects.ts";
import type { PeeringSettings } from "../settings/cluster_settings.ts";

/** The API groups of the peering resources: the current one first, then Kopf's older one. */
export const PEERING_GROUPS: readonly string[] = ["kopf.dev", "kopf.zalando.org"];

/** The plural of the cluster-scoped peering resource. */
export const CLUSTER_PEERING_PLURAL = "clusterkopfpeerings";

/** The plural of the namespaced peering resource. */
export const NAMESPACED_PEERING_PLURAL = "kopfpeerings";

/** The record an operator keeps about itself in the peering object's status. */
export interface PeerRecord {
  /** The operator's priority. */
  readonly priority: number;
  /** How many seconds after `lastseen` the record expires. */
  readonly lifetime: number;
  /** The UTC time of the last keep-alive, ISO-8601 without a zone. */
  readonly lastseen: string;
  /**
   * Why the record is there, for records written by `kopf freeze --message` (Kopf ignores
   * the field; operators of this framework say it when they pause).
   */
  readonly message?: string;
}

/** An operator as read from a peering object. */
export interface Peer {
  /** Its identity: the key of its record. */
  readonly identity: string;
  /** Its priority (0 if unset). */
  readonly priority: number;
  /** Its lifetime in seconds (60 if unset). */
  readonly lifetime: number;
  /** Its last keep-alive, in epoch milliseconds (now if unset or unreadable). */
  readonly lastseen: number;
  /** When its record expires, in epoch milliseconds. */
  readonly deadline: number;
  /** The message of its record, if it has one (see {@link PeerRecord.message}). */
  readonly message?: string;
}

/**
 * A new identity for this operator, as Kopf makes it: the pod's name from `POD_ID` when
 * set, else `user@host/<UTC start time>/<3 random characters>`.
 */
export function detectOwnIdentity(now: number = Date.now()): string {
  const { pod, user, host } = hostIdentity();
  if (pod !== undefined) return pod;
  const alphabet = "abcdefhijklmnopqrstuvwxyz0123456789";
  let random = "";
  for (let i = 0; i < 3; i++) random += alphabet[Math.floor(Math.random() * alphabet.length)];
  return `${user}@${host}/${formatLastseen(now)}/${random}`;
}

/**
 * The identity of a person or script pausing operators by hand (`kopf freeze`), as Kopf
 * makes it: the pod's name from `POD_ID` when set, else `user@host` -- the same for
 * every call from one place, so that `kopf resume` finds what `kopf freeze` wrote.
 */
export function manualIdentity(): string {
  const { pod, user, host } = hostIdentity();
  return pod ?? `${user}@${host}`;
}

/** A time as Kopf writes `lastseen`: UTC, ISO-8601 with microseconds and no zone. */
export function formatLastseen(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 23) + "000";
}

const TIMESTAMP =
  /^(\d{4}-\d{2}-\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?(?:[.,](\d+))?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * Read a `lastseen` time into epoch milliseconds: ISO-8601 with or without fractions; a
 * time without a zone is UTC. `undefined` if it cannot be read.
 */
export function parseLastseen(value: unknown): number | undefined {
  if (typeof value !== "string") return undefined;
  const m = TIMESTAMP.exec(value.trim());
  if (m === null) return undefined;
  const [, date, hours, minutes, seconds = "00", fraction = "", zone = "Z"] = m;
  let offset = "Z";
  if (zone.toUpperCase() !== "Z") {
    const digits = zone.slice(1).replace(":", "");
    offset = `${zone[0]}${digits.slice(0, 2)}:${digits.slice(2, 4) || "00"}`;
  }
  const base = Date.parse(`${date}T${hours}:${minutes}:${seconds}${offset}`);
  if (Number.isNaN(base)) return undefined;
  const millis = fraction === "" ? 0 : Math.floor(Number(`0.${fraction}`) * 1000);
  return base + millis;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function integerOf(value: unknown, fallback: number): number {
  const n = typeof value === "number" ? value : typeof value === "string" ? Number(value) : NaN;
  return Number.isFinite(n) ? Math.trunc(n) : fallback;
}

/** The operators recorded in a peering object's status (entries that are not records skipped). */
export function parsePeers(status: unknown, now: number): Peer[] {
  if (!isRecord(status)) return [];
  const peers: Peer[] = [];
  for (const [identity, info] of Object.entries(status)) {
    if (!isRecord(info)) continue;
    const priority = integerOf(info.priority, 0);
    const lifetime = integerOf(info.lifetime, 60);
    const lastseen = parseLastseen(info.lastseen) ?? now;
    const deadline = lastseen + lifetime * 1000;
    const peer: Peer = { identity, priority, lifetime, lastseen, deadline };
    peers.push(typeof info.message === "string" ? { ...peer, message: info.message } : peer);
  }
  return peers;
}

/** Whether a peer's record has expired. */
export function isDead(peer: Peer, now: number): boolean {
  return peer.deadline <= now;
}

/** The lifetime written to the records: whole seconds (Kopf reads it as an integer), >= 1. */
export function recordLifetime(settings: Pick<PeeringSettings, "lifetime">): number {
  return Math.max(1, Math.ceil(settings.lifetime));
}

/**
 * Seconds between keep-alives: well before the record expires -- 5 to 10 seconds early
 * (at random, to spread the keep-alives of many operators) for long lifetimes, as Kopf
 * does; half the lifetime for short ones.
 */
export function keepAliveInterval(lifetime: number, random: number = Math.random()): number {
  return lifetime > 20 ? lifetime - 5 - 5 * random : lifetime / 2;
}

/** What this operator makes of the peers it sees. */
export interface PeeringVerdict {
  /** Live peers with a higher priority: this operator must pause. */
  readonly higher: readonly Peer[];
  /** Live peers with the same priority: all of them pause. */
  readonly same: readonly Peer[];
  /** Dead peers, whose records are to be removed. */
  readonly dead: readonly Peer[];
}

/** Sort the peers (other than this operator) into those that pause it and the dead. */
export function judgePeers(
  peers: readonly Peer[],
  self: { readonly identity: string; readonly priority: number },
  now: number,
): PeeringVerdict {
  const others = peers.filter((peer) => peer.identity !== self.identity);
  const live = others.filter((peer) => !isDead(peer, now));
  return {
    higher: live.filter((peer) => peer.priority > self.priority),
    same: live.filter((peer) => peer.priority === self.priority),
    dead: others.filter((peer) => isDead(peer, now)),
  };
}

/**
 * Merge `status` into the status of a peering object (through its `status` subresource
 * when it has one): `{ identity: record }` writes a record, `{ identity: null }` removes it.
 * Throws `APINotFoundError` when the object does not exist.
 */
export async function patchPeeringStatus(
  api: ApiClient,
  resource: Resource,
  name: string,
  namespace: string | undefined,
  status: JsonObject,
  options: { readonly signal?: AbortSignal } = {},
): Promise<void> {
  const viaSubresource = resource.subresources.includes("status");
  await patchObject(
    api,
    resource,
    { namespace, name },
    { status },
    { signal: options.signal, ...(viaSubresource ? { subresource: "status" } : {}) },
  );
}

/** The peering resource for the settings' scope, of the first group that is served. */
export function findPeeringResource(
  resources: readonly Resource[],
  clusterwide: boolean,
): Resource | undefined {
  const plural = clusterwide ? CLUSTER_PEERING_PLURAL : NAMESPACED_PEERING_PLURAL;
  for (const group of PEERING_GROUPS) {
    const found = resources.find((r) => r.group === group && r.plural === plural && r.preferred);
    if (found !== undefined) return found;
  }
  return undefined;
}
