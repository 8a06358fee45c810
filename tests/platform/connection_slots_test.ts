/**
 * Connection slots per client address: the shares and the total, slots given back on
 * close, dual-stack addresses as one client, and refusals logged once per client per
 * interval for a bounded number of clients.
 */
import {
  clientAddress,
  ConnectionSlots,
  MAX_CLIENTS_LOGGED,
  type SlotSocket,
} from "../../src/platform/connection_slots.ts";
import type { Logger } from "../../src/structs/loggers.ts";
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";

/** A socket whose close the test triggers; it remembers being destroyed. */
class FakeSocket implements SlotSocket {
  destroyed = false;
  #onClose: (() => void)[] = [];
  constructor(readonly remoteAddress?: string) {}
  destroy(): void {
    this.destroyed = true;
  }
  once(_event: "close", listener: () => void): void {
    this.#onClose.push(listener);
  }
  close(): void {
    for (const listener of this.#onClose.splice(0)) listener();
  }
}

function setup(limits = { clientConnectionLimit: 2, connectionLimit: 5 }) {
  const warnings: string[] = [];
  const none = () => {};
  const logger: Logger = { debug: none, info: none, error: none, warning: (m) => warnings.push(m) };
  let now = 0;
  const slots = new ConnectionSlots(limits, {
    logger,
    server: () => "The test server at http://127.0.0.1:1",
    logInterval: 60,
    now: () => now,
  });
  const connect = (address?: string) => {
    const socket = new FakeSocket(address);
    return { socket, admitted: slots.admit(socket) };
  };
  return { slots, warnings, connect, advance: (seconds: number) => (now += seconds * 1000) };
}

Deno.test("each client holds at most its share; other clients are admitted beside it", () => {
  const { slots, connect } = setup();
  assertEquals([connect("10.0.0.1").admitted, connect("10.0.0.1").admitted], [true, true]);
  const third = connect("10.0.0.1");
  assertEquals([third.admitted, third.socket.destroyed], [false, true]);
  assertEquals(connect("10.0.0.2").admitted, true);
  assertEquals([slots.heldBy("10.0.0.1"), slots.heldBy("10.0.0.2"), slots.total], [2, 1, 3]);
});

Deno.test("the total is a backstop across clients", () => {
  const { slots, connect, warnings } = setup();
  for (const address of ["a", "a", "b", "b", "c"]) assert(connect(address).admitted);
  const sixth = connect("d");
  assertEquals([sixth.admitted, sixth.socket.destroyed, slots.total], [false, true, 5]);
  assertStringIncludes(
    warnings[0],
    "closed a connection from d unanswered: 5 connections are open",
  );
  assertStringIncludes(warnings[0], "connectionLimit 5");
});

Deno.test("a closed connection gives its slot back; a client with none is forgotten", () => {
  const { slots, connect } = setup();
  const first = connect("10.0.0.1");
  connect("10.0.0.1");
  assertEquals(connect("10.0.0.1").admitted, false);
  first.socket.close();
  assertEquals([slots.heldBy("10.0.0.1"), slots.total], [1, 1]);
  assertEquals(connect("10.0.0.1").admitted, true);
  assertEquals(slots.total, 2);
});

Deno.test("an IPv4 client over a dual-stack socket is the same client as over IPv4", () => {
  assertEquals(clientAddress("::ffff:10.0.0.1"), "10.0.0.1");
  assertEquals(clientAddress("::1"), "::1");
  assertEquals(clientAddress("::ffff:a:b"), "::ffff:a:b");
  const { slots, connect } = setup();
  connect("::ffff:10.0.0.1");
  connect("10.0.0.1");
  assertEquals(connect("::ffff:10.0.0.1").admitted, false);
  assertEquals(slots.heldBy("10.0.0.1"), 2);
});

Deno.test("a socket whose client is gone already is closed and takes no slot", () => {
  const { slots, connect } = setup();
  const gone = connect(undefined);
  assertEquals([gone.admitted, gone.socket.destroyed, slots.total], [false, true, 0]);
});

Deno.test("refusals are logged once per client per interval", () => {
  const { connect, warnings, advance } = setup();
  connect("10.0.0.1");
  connect("10.0.0.1");
  for (let i = 0; i < 100; i++) connect("10.0.0.1");
  assertEquals(warnings.length, 1);
  assertStringIncludes(
    warnings[0],
    "The test server at http://127.0.0.1:1 closed a connection from 10.0.0.1 unanswered: " +
      "that client holds 2 connections already, its share (clientConnectionLimit",
  );
  assertStringIncludes(warnings[0], "further refusals of it are not logged for 60s");
  connect("10.0.0.2");
  connect("10.0.0.2");
  connect("10.0.0.2");
  assertEquals(warnings.length, 2, "another client's refusal is its own line");
  advance(59);
  connect("10.0.0.1");
  assertEquals(warnings.length, 2);
  advance(1);
  connect("10.0.0.1");
  assertEquals(warnings.length, 3, "a new interval, a new line");
});

Deno.test("refusals of many clients make a bounded number of lines an interval", () => {
  const { connect, warnings, advance } = setup({ clientConnectionLimit: 1, connectionLimit: 1 });
  connect("holder");
  for (let i = 0; i < 1000; i++) connect(`10.0.${i >> 8}.${i & 255}`);
  assertEquals(warnings.length, MAX_CLIENTS_LOGGED + 1);
  assertStringIncludes(
    warnings[MAX_CLIENTS_LOGGED],
    `refuses connections from more than ${MAX_CLIENTS_LOGGED} clients`,
  );
  advance(60);
  connect("10.9.9.9");
  assertEquals(warnings.length, MAX_CLIENTS_LOGGED + 2);
});
