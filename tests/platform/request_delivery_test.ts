import { assertEquals } from "../assert.ts";
import { deliveryOf, markDelivery } from "../../src/platform/request_delivery.ts";

Deno.test("an unmarked error says nothing of its delivery: maybe sent, not stale", () => {
  assertEquals(deliveryOf(new TypeError("x")), { unsent: false, staleConnection: false });
  assertEquals(deliveryOf("a string"), { unsent: false, staleConnection: false });
  assertEquals(deliveryOf(undefined), { unsent: false, staleConnection: false });
});

Deno.test("a mark is read from the error or from its causes, and marks add up", () => {
  const inner = markDelivery(new Error("refused"), { unsent: true });
  assertEquals(deliveryOf(inner), { unsent: true, staleConnection: false });
  const outer = new TypeError("error sending request", { cause: inner });
  assertEquals(deliveryOf(outer), { unsent: true, staleConnection: false });
  markDelivery(inner, { staleConnection: true });
  assertEquals(deliveryOf(outer), { unsent: true, staleConnection: true });
});
