import { assertEquals, assertThrows } from "../assert.ts";
import { Channel } from "../../src/structs/channels.ts";

Deno.test("a channel delivers values sent before and during the iteration, in order", async () => {
  const channel = new Channel<number>();
  channel.send(1);
  channel.send(2);
  const seen: number[] = [];
  const consuming = (async () => {
    for await (const value of channel) seen.push(value);
  })();
  await Promise.resolve();
  channel.send(3);
  channel.close();
  channel.send(4); // after the close: ignored
  await consuming;
  assertEquals(seen, [1, 2, 3]);
});

Deno.test("a waiting consumer wakes on the next value and ends on the close", async () => {
  const channel = new Channel<string>();
  const iterator = channel[Symbol.asyncIterator]();
  const next = iterator.next();
  channel.send("a");
  assertEquals(await next, { value: "a", done: false });
  const last = iterator.next();
  channel.close();
  assertEquals(await last, { value: undefined, done: true });
  assertEquals(channel.closed, true);
});

Deno.test("a channel has one consumer, and leaving the loop closes it", async () => {
  const channel = new Channel<number>();
  channel.send(1);
  channel.send(2);
  for await (const _ of channel) break;
  assertEquals(channel.closed, true);
  assertThrows(() => channel[Symbol.asyncIterator](), Error, "one consumer");
});
