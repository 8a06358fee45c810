/**
 * Connection slots shared per client address, for the servers that listen on the network
 * before they know who calls (the webhook server, the probe and metrics endpoints).
 *
 * A total cap alone lets one client deny everyone: holding as many idle sockets as the cap
 * refuses every other client's request. So each client address may hold at most its share
 * (`clientConnectionLimit`); a connection beyond it is closed as it arrives. The total cap
 * (`connectionLimit`) stays, but only as a backstop several shares wide: it bounds the
 * server's sockets and memory against many addresses at once, which the timeouts alone do
 * not (they bound how long a connection is held, not how many are). Go's net/http, behind
 * controller-runtime, has no cap at all; there the file-descriptor limit is the backstop,
 * reached only after the memory a pod has is gone.
 *
 * A refused connection is closed at once, before a byte of it is read (and before a TLS
 * handshake): answering it a 503 would mean reading its request first, i.e. holding the
 * very slot that was refused for as long as the client cares to trickle, and a TLS
 * handshake's work for whoever asks. Its client sees the connection closed, unanswered.
 *
 * A refusal is logged at most once per client per interval (a minute), and at most
 * {@link MAX_CLIENTS_LOGGED} clients a minute: a log line per refused connection would
 * be a denial of service of its own.
 *
 * @module
 */
import type { Logger } from "../structs/loggers.ts";

/** The bounds on the connections of one server. */
export interface SlotLimits {
  /** The most connections open at once from one client address. */
  readonly clientConnectionLimit: number;
  /** The most connections open at once in all: a backstop well above one client's share. */
  readonly connectionLimit: number;
}

/** What the slots need of a connection's socket (plain TCP: the one a TLS socket wraps). */
export interface SlotSocket {
  readonly remoteAddress?: string;
  destroy(): void;
  once(event: "close", listener: () => void): unknown;
}

/** Options of {@link ConnectionSlots}. */
export interface ConnectionSlotsOptions {
  /** Where refusals are reported. */
  readonly logger: Logger;
  /** What the server is, for the log lines (e.g. `The webhook server at 0.0.0.0:9443`). */
  readonly server: () => string;
  /** Seconds in which each client's refusals are logged once; 60 by default. */
  readonly logInterval?: number;
  /** Milliseconds of a monotonic clock (`performance.now` by default): for tests. */
  readonly now?: () => number;
}

/** The most clients whose refusals are logged in one interval; more get one line in all. */
export const MAX_CLIENTS_LOGGED = 20;

/**
 * A client's address as a key: an IPv4 client of a dual-stack socket (`::ffff:10.0.0.1`)
 * is the same client as over IPv4 (`10.0.0.1`).
 */
export function clientAddress(remoteAddress: string): string {
  return remoteAddress.startsWith("::ffff:") && remoteAddress.includes(".")
    ? remoteAddress.slice("::ffff:".length)
    : remoteAddress;
}

/**
 * The slots of one server: who holds how many connections now; a connection past its
 * client's share or past the total is closed as it arrives (see the module docs).
 */
export class ConnectionSlots {
  readonly limits: SlotLimits;
  readonly #held = new Map<string, number>();
  #total = 0;
  readonly #refusals: RefusalLog;

  constructor(limits: SlotLimits, options: ConnectionSlotsOptions) {
    this.limits = limits;
    this.#refusals = new RefusalLog(limits, options);
  }

  /** Connections open now, in all. */
  get total(): number {
    return this.#total;
  }

  /** Connections open now from this client address. */
  heldBy(address: string): number {
    return this.#held.get(clientAddress(address)) ?? 0;
  }

  /**
   * A connection arrived: true if it takes a slot (given back when it closes); false if
   * it was refused, i.e. closed at once (its client gone already, or over a bound).
   */
  admit(socket: SlotSocket): boolean {
    if (socket.remoteAddress === undefined) {
      socket.destroy(); // the client is gone already: nothing to serve
      return false;
    }
    const client = clientAddress(socket.remoteAddress);
    const held = this.#held.get(client) ?? 0;
    if (held >= this.limits.clientConnectionLimit || this.#total >= this.limits.connectionLimit) {
      socket.destroy();
      this.#refusals.refused(client, held, this.#total);
      return false;
    }
    this.#held.set(client, held + 1);
    this.#total++;
    socket.once("close", () => this.#release(client));
    return true;
  }

  #release(client: string): void {
    this.#total--;
    const held = (this.#held.get(client) ?? 1) - 1;
    if (held > 0) this.#held.set(client, held);
    else this.#held.delete(client); // the map holds only the clients connected now
  }
}

/** Reports refusals: once per client per interval, for a bounded number of clients. */
class RefusalLog {
  readonly #limits: SlotLimits;
  readonly #logger: Logger;
  readonly #server: () => string;
  readonly #interval: number;
  readonly #now: () => number;
  /** When the current interval started (ms), and the clients logged in it. */
  #since = -Infinity;
  readonly #logged = new Set<string>();
  #overflowLogged = false;

  constructor(limits: SlotLimits, options: ConnectionSlotsOptions) {
    this.#limits = limits;
    this.#logger = options.logger;
    this.#server = options.server;
    this.#interval = options.logInterval ?? 60;
    this.#now = options.now ?? (() => performance.now());
  }

  refused(client: string, held: number, total: number): void {
    const now = this.#now();
    if (now - this.#since >= this.#interval * 1000) {
      this.#since = now;
      this.#logged.clear();
      this.#overflowLogged = false;
    }
    if (this.#logged.has(client)) return;
    const quiet = `further refusals of it are not logged for ${this.#interval}s`;
    if (this.#logged.size >= MAX_CLIENTS_LOGGED) {
      if (this.#overflowLogged) return;
      this.#overflowLogged = true;
      this.#logger.warning(
        `${this.#server()} refuses connections from more than ${MAX_CLIENTS_LOGGED} clients; ` +
          `those of further clients are not logged for ${this.#interval}s.`,
      );
      return;
    }
    this.#logged.add(client);
    const { clientConnectionLimit, connectionLimit } = this.#limits;
    this.#logger.warning(
      held >= clientConnectionLimit
        ? `${this.#server()} closed a connection from ${client} unanswered: that client holds ` +
          `${held} connections already, its share (clientConnectionLimit: raise it if that ` +
          `client is a legitimate one); ${quiet}.`
        : `${this.#server()} closed a connection from ${client} unanswered: ${total} ` +
          `connections are open, the most it serves (connectionLimit ${connectionLimit}: raise ` +
          `it if so many clients are legitimate); ${quiet}.`,
      { client, held, total },
    );
  }
}
