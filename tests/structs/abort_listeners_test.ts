/**
 * Abort listeners kept per signal in a set: called once each, in order, when the signal
 * aborts; removable; one failing does not stop the others.
 */
import { assertEquals } from "../assert.ts";
import { listenAbort, onAbort, unlistenAbort } from "../../src/structs/abort_listeners.ts";

Deno.test("the listeners are called once each, in the order they were added", () => {
  const controller = new AbortController();
  const calls: string[] = [];
  onAbort(controller.signal, () => calls.push("a"));
  onAbort(controller.signal, () => calls.push("b"));
  const same = () => calls.push("c");
  onAbort(controller.signal, same);
  onAbort(controller.signal, same); // a function added twice is called twice, like two listeners
  controller.abort();
  controller.abort();
  assertEquals(calls, ["a", "b", "c", "c"]);
});

Deno.test("a removed listener is not called; removing twice is harmless", () => {
  const controller = new AbortController();
  const calls: string[] = [];
  const remove = onAbort(controller.signal, () => calls.push("removed"));
  onAbort(controller.signal, () => calls.push("kept"));
  remove();
  remove();
  controller.abort();
  assertEquals(calls, ["kept"]);
});

Deno.test("signals do not share listeners; each signal registers one real listener", () => {
  const first = new AbortController();
  const second = new AbortController();
  let added = 0;
  const count = (target: AbortSignal) => {
    const original = target.addEventListener.bind(target);
    target.addEventListener = ((...args: Parameters<typeof original>) => {
      added++;
      original(...args);
    }) as typeof target.addEventListener;
  };
  count(first.signal);
  count(second.signal);
  const calls: string[] = [];
  for (let i = 0; i < 1000; i++) onAbort(first.signal, () => calls.push(`first ${i}`));
  onAbort(second.signal, () => calls.push("second"));
  assertEquals(added, 2);
  second.abort();
  assertEquals(calls, ["second"]);
  first.abort();
  assertEquals(calls.length, 1001);
});

Deno.test("a listener that throws does not stop the others; its error is rethrown later", async () => {
  const controller = new AbortController();
  const calls: string[] = [];
  const failures: unknown[] = [];
  const onError = (event: ErrorEvent) => {
    event.preventDefault();
    failures.push(event.error);
  };
  globalThis.addEventListener("error", onError);
  try {
    onAbort(controller.signal, () => {
      throw new Error("boom");
    });
    onAbort(controller.signal, () => calls.push("after"));
    controller.abort();
    assertEquals(calls, ["after"]);
    await new Promise((resolve) => setTimeout(resolve, 0));
    assertEquals(failures.map((e) => (e as Error).message), ["boom"]);
  } finally {
    globalThis.removeEventListener("error", onError);
  }
});

Deno.test("listener objects are called among the functions, once each, until unlistened", () => {
  const controller = new AbortController();
  const calls: string[] = [];
  const object = (name: string) => ({ handleAbort: () => calls.push(name) });
  const kept = object("kept");
  const removed = object("removed");
  onAbort(controller.signal, () => calls.push("function"));
  listenAbort(controller.signal, kept);
  listenAbort(controller.signal, kept); // an object listens once
  listenAbort(controller.signal, removed);
  unlistenAbort(controller.signal, removed);
  unlistenAbort(controller.signal, removed); // twice is harmless
  unlistenAbort(new AbortController().signal, kept); // and so is a signal never listened to
  controller.abort();
  controller.abort();
  assertEquals(calls, ["function", "kept"]);
});
