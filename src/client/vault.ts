/**
 * The credentials vault: every set of credentials that the logins produced, for the API
 * calls to use.
 *
 * - Each call takes a random item among those of the highest priority.
 * - Expired items are dropped when found.
 * - A call answered with 401 invalidates the item it used and retries with another one.
 * - When no items are left, calls wait while ONE login round runs for all of them (the
 *   owner's re-login callback: the login handlers, or a built-in login).
 * - Credentials once found invalid are never accepted again, so that a login returning
 *   the same bad token cannot loop forever: the round then yields nothing, and the
 *   waiting calls fail with {@link LoginError}.
 *
 * @module
 */
import { getLogger } from "../platform/log_routing.ts";
import { type Clock, realClock } from "../structs/clock.ts";
import type { ConnectionInfo } from "../structs/credentials.ts";
import { LoginError } from "../structs/errors.ts";
import { onAbort } from "../structs/abort_listeners.ts";
import { categoryLogger } from "../platform/logging.ts";

/** One set of credentials in the vault, under the id of the login that produced it. */
export interface VaultItem {
  /** The id of the login (handler) that produced the credentials. */
  readonly id: string;
  /** The credentials. */
  readonly info: ConnectionInfo;
}

/**
 * What a login round yields: credentials keyed by the login's id, as a `Map`, a plain
 * object or `[id, info]` pairs. Empty values (a login that found nothing) are skipped.
 */
export type LoginResults =
  | ReadonlyMap<string, ConnectionInfo | null | undefined>
  | Readonly<Record<string, ConnectionInfo | null | undefined>>
  | Iterable<readonly [string, ConnectionInfo | null | undefined]>;

/** Runs all logins once and returns what they produced. */
export type ReloginCallback = () => Promise<LoginResults>;

/** Options of a {@link Vault}. */
export interface VaultOptions {
  /** Called when the vault is empty and a call needs credentials. */
  relogin?: ReloginCallback;
  /** A source of random numbers in [0, 1), for tests; `Math.random` by default. */
  random?: () => number;
  /** The clock of the credentials' expiration; the real one by default. */
  clock?: Clock;
}

const logger = getLogger(["kopf", "client", "vault"]);
const reporter = categoryLogger(["kopf", "client", "vault"]);

/** Credentials that an API server refused, as messages name them (never the secret). */
interface Refusal {
  readonly server: string;
  readonly source: string;
  readonly why: string;
}

/** Where credentials come from, for messages: their own `source`, else the login's id. */
function sourceOf(item: VaultItem): string {
  return item.info.source ?? `the login ${JSON.stringify(item.id)}`;
}

/** Why a login round brought nothing usable, and what to do about it. */
function noCredentialsMessage(refused: readonly Refusal[]): string {
  if (refused.length === 0) {
    return "Logging in produced no usable credentials (none at all, or only expired ones): " +
      "check the kubeconfig (KUBECONFIG, --kubeconfig, --context), the pod's service " +
      "account, or the login handlers.";
  }
  const first = refused[0];
  return `The API server ${first.server} refused the credentials of ${first.source} ` +
    `(${first.why}), and logging in again brought no others: renew them (e.g. log in ` +
    "again with your cloud's CLI, or refresh the token or certificate), choose other " +
    "credentials (--context, KUBECONFIG, --kubeconfig), or fix the login handlers.";
}

/** The fields that make two credentials the same for the "known to be bad" list. */
function fingerprint(info: ConnectionInfo): string {
  return JSON.stringify([
    info.server,
    info.scheme ?? null,
    info.token ?? null,
    info.tokenPath ?? null,
    info.username ?? null,
    info.password ?? null,
    info.certificatePath ?? null,
    info.certificateData ?? null,
    info.privateKeyPath ?? null,
    info.privateKeyData ?? null,
  ]);
}

function entriesOf(results: LoginResults): [string, ConnectionInfo | null | undefined][] {
  if (results instanceof Map) return [...results.entries()];
  if (Symbol.iterator in Object(results)) {
    return [...(results as Iterable<readonly [string, ConnectionInfo | null | undefined]>)]
      .map(([id, info]) => [id, info]);
  }
  return Object.entries(results as Record<string, ConnectionInfo | null | undefined>);
}

/** Wait for the promise, or stop waiting (not the work itself) when the signal aborts. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const unlisten = onAbort(signal, () => reject(signal.reason));
    promise.then(resolve, reject).finally(unlisten);
  });
}

/** Holds the credentials of all logins and hands them out to API calls. */
export class Vault {
  #items = new Map<string, VaultItem>();
  /**
   * No item expires before this wall-clock time (ms): until then, a selection need not look
   * for expired items. May be early (an item that set it is gone), never late.
   */
  #nextExpiry = Infinity;
  /** The items of the highest priority, picked from per call; reset when items change. */
  #best: VaultItem[] | undefined;
  #bad = new Set<string>();
  /** Why the known-bad credentials were refused, for the messages about them. */
  readonly #refusals = new Map<string, Refusal>();
  #round: Promise<void> | undefined;
  readonly #relogin: ReloginCallback | undefined;
  readonly #random: () => number;
  readonly #clock: Clock;

  /** Make an empty vault; the first call that needs credentials starts a login round. */
  constructor(options: VaultOptions = {}) {
    this.#relogin = options.relogin;
    this.#random = options.random ?? Math.random;
    this.#clock = options.clock ?? realClock;
  }

  /**
   * Add the results of logins. Credentials known to be invalid are ignored; an id seen
   * before gets its new credentials. Returns how many items were accepted.
   */
  populate(results: LoginResults): number {
    let accepted = 0;
    for (const [id, info] of entriesOf(results)) {
      if (info === null || info === undefined) continue;
      if (typeof info !== "object" || typeof info.server !== "string" || !info.server) {
        throw new LoginError(
          `The login ${JSON.stringify(id)} returned no server URL; ` +
            `return a ConnectionInfo with a server.`,
        );
      }
      if (!/^https?:\/\/[^/]/.test(info.server) || !URL.canParse(info.server)) {
        throw new LoginError(
          `The login ${JSON.stringify(id)} returned the server ${JSON.stringify(info.server)}, ` +
            `which is not a URL; use the form https://host:port.`,
        );
      }
      const expiration: unknown = info.expiration;
      if (
        expiration !== undefined &&
        !(expiration instanceof Date && !Number.isNaN(expiration.getTime()))
      ) {
        throw new LoginError(
          `The login ${JSON.stringify(id)} returned the expiration ${String(expiration)}, ` +
            `which is not a valid Date; return a Date (or no expiration).`,
        );
      }
      if (this.#bad.has(fingerprint(info))) {
        logger.debug("Ignoring the credentials of {id}: they were rejected before.", { id });
        continue;
      }
      if (this.#isExpired(info)) {
        logger.debug("Ignoring the credentials of {id}: they have expired.", { id });
        continue;
      }
      this.#items.set(id, Object.freeze({ id, info }));
      if (info.expiration !== undefined) {
        this.#nextExpiry = Math.min(this.#nextExpiry, info.expiration.getTime());
      }
      this.#best = undefined;
      accepted++;
    }
    return accepted;
  }

  /** The number of usable (not expired) items now. */
  get size(): number {
    this.#dropExpired();
    return this.#items.size;
  }

  /** The usable items now, for inspection. */
  items(): VaultItem[] {
    this.#dropExpired();
    return [...this.#items.values()];
  }

  /**
   * Credentials for one API call: a random item of the highest priority. When the vault
   * is empty, waits for a login round (one for all concurrent callers); raises
   * {@link LoginError} when the round yields no usable credentials. The signal stops the
   * wait (the login round itself goes on for the others).
   */
  select(signal?: AbortSignal): Promise<VaultItem> {
    // Credentials at hand (every request but the first ones) need no async function.
    if (!signal?.aborted) {
      this.#dropExpired();
      if (this.#items.size > 0) return Promise.resolve(this.#pick());
    }
    return this.#selectAfterLogin(signal);
  }

  async #selectAfterLogin(signal: AbortSignal | undefined): Promise<VaultItem> {
    for (;;) {
      signal?.throwIfAborted();
      this.#dropExpired();
      if (this.#items.size > 0) return this.#pick();
      await abortable(this.login(), signal);
    }
  }

  /**
   * Mark the credentials used by a call as invalid (the API answered 401): the item is
   * removed and its credentials are never accepted again. A later item under the same id
   * (from a newer login) is not affected.
   */
  invalidate(item: VaultItem, reason?: unknown): void {
    const key = fingerprint(item.info);
    const why = reason instanceof Error ? reason.message : String(reason ?? "rejected");
    if (!this.#bad.has(key)) {
      this.#bad.add(key);
      const refusal = { server: item.info.server, source: sourceOf(item), why };
      this.#refusals.set(key, refusal);
      reporter.warning(
        `The API server ${refusal.server} refused the credentials of ${refusal.source} ` +
          `(${why}); trying other credentials or logging in again.`,
      );
    }
    if (this.#items.get(item.id) === item) {
      this.#items.delete(item.id);
      this.#best = undefined;
    }
  }

  /** Whether these credentials were rejected before. */
  isKnownBad(info: ConnectionInfo): boolean {
    return this.#bad.has(fingerprint(info));
  }

  /**
   * Run a login round now, or join the one already running. Resolves when the vault has
   * usable credentials; raises {@link LoginError} when the round produced none.
   */
  login(): Promise<void> {
    this.#round ??= this.#runRound().finally(() => {
      this.#round = undefined;
    });
    return this.#round;
  }

  async #runRound(): Promise<void> {
    if (!this.#relogin) {
      throw new LoginError("No credentials are left and no login is configured to get more.");
    }
    logger.debug("Logging in: the vault is empty.");
    const results = await this.#relogin();
    const refused = [...entriesOf(results)].flatMap(([, info]) =>
      info ? [this.#refusals.get(fingerprint(info))].filter((r) => r !== undefined) : []
    );
    this.populate(results);
    this.#dropExpired();
    if (this.#items.size === 0) throw new LoginError(noCredentialsMessage(refused));
  }

  #isExpired(info: ConnectionInfo): boolean {
    return info.expiration !== undefined && info.expiration.getTime() <= this.#clock.wall();
  }

  #dropExpired(): void {
    // Called for every request: most credentials never expire, the others rarely.
    if (this.#nextExpiry === Infinity || this.#nextExpiry > this.#clock.wall()) return;
    let next = Infinity;
    for (const [id, item] of this.#items) {
      if (this.#isExpired(item.info)) {
        this.#items.delete(id);
        this.#best = undefined;
        logger.debug("The credentials of {id} have expired.", { id });
      } else if (item.info.expiration !== undefined) {
        next = Math.min(next, item.info.expiration.getTime());
      }
    }
    this.#nextExpiry = next;
  }

  #pick(): VaultItem {
    const best = this.#best ??= this.#highestPriority();
    return best[Math.min(best.length - 1, Math.floor(this.#random() * best.length))];
  }

  #highestPriority(): VaultItem[] {
    const items = [...this.#items.values()];
    const top = Math.max(...items.map((item) => item.info.priority ?? 0));
    return items.filter((item) => (item.info.priority ?? 0) === top);
  }
}
