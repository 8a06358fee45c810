/**
 * A client that holds idle connections to a server, as an attacker would: TCP only, not a
 * byte sent. Its sockets are bound to a loopback address of their own (Linux routes all
 * of 127/8 to the loopback device), so that the server sees another client than the
 * tests' own requests from 127.0.0.1.
 */
import * as net from "node:net";

/** The address the idle client's connections come from. */
export const ATTACKER = "127.0.0.2";

/** Idle connections of one client; see the module docs. */
export class IdleClient implements Disposable {
  readonly #sockets: net.Socket[] = [];
  /** How many of the connections the server has closed. */
  closed = 0;
  /** Resolves once the server has closed `n` of the connections. */
  readonly #waiters: { n: number; resolve: () => void }[] = [];

  /**
   * Open `count` connections to the port from `from`, one after the other, each
   * established (or refused) before the next.
   */
  static async open(port: number, count: number, from = ATTACKER): Promise<IdleClient> {
    const client = new IdleClient();
    for (let i = 0; i < count; i++) await client.#connect(port, from);
    return client;
  }

  /** Connections still open. */
  get open(): number {
    return this.#sockets.length - this.closed;
  }

  /** Wait (10 s at most) until the server has closed `n` of the connections. */
  closedAtLeast(n: number): Promise<boolean> {
    if (this.closed >= n) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), 10_000);
      this.#waiters.push({
        n,
        resolve: () => {
          clearTimeout(timer);
          resolve(true);
        },
      });
    });
  }

  #connect(port: number, from: string): Promise<void> {
    const socket = net.connect({ host: "127.0.0.1", port, localAddress: from });
    this.#sockets.push(socket);
    socket.on("error", () => {}); // a reset by the server: closed all the same
    socket.once("close", () => {
      this.closed++;
      for (const waiter of this.#waiters.filter((w) => this.closed >= w.n)) waiter.resolve();
    });
    return new Promise((resolve) => {
      socket.once("connect", () => resolve());
      socket.once("close", () => resolve());
    });
  }

  [Symbol.dispose](): void {
    for (const socket of this.#sockets) socket.destroy();
  }
}
