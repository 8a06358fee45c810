/**
 * A watch's stream on its way from the fake cluster to the operator, through the simulated
 * network: each event takes its latency (some come late, as from a lagging watch cache),
 * bookmarks may be lost or late, and the server may close the stream at any moment (its
 * timeout) or the line break under it. Every event delivered is traced.
 *
 * @module
 */
import { sleep } from "../../structs/clock.ts";
import { BASE_RATES } from "./simulation_faults.ts";
import type { SimulatedNetwork } from "./network.ts";

const encoder = new TextEncoder();

/** What a watch event line says, for the trace. */
function describeEvent(line: string): { type: string; text: string; initialEnd: boolean } {
  try {
    const event = JSON.parse(line) as {
      type?: string;
      object?: {
        kind?: string;
        metadata?: {
          name?: string;
          namespace?: string;
          resourceVersion?: string;
          annotations?: Record<string, string>;
        };
        code?: number;
        message?: string;
      };
    };
    const type = String(event.type);
    const object = event.object ?? {};
    const meta = object.metadata ?? {};
    const initialEnd = type === "BOOKMARK" &&
      meta.annotations?.["k8s.io/initial-events-end"] === "true";
    if (type === "ERROR") {
      return { type, text: `ERROR ${object.code} ${object.message}`, initialEnd };
    }
    if (type === "BOOKMARK") {
      const end = initialEnd ? " (initial-events-end)" : "";
      return { type, text: `BOOKMARK rv=${meta.resourceVersion}${end}`, initialEnd };
    }
    const name = meta.namespace ? `${meta.namespace}/${meta.name}` : String(meta.name);
    return { type, text: `${type} ${name} rv=${meta.resourceVersion}`, initialEnd };
  } catch {
    return { type: "", text: `(unreadable line of ${line.length} characters)`, initialEnd: false };
  }
}

/** A watch stream relayed through the network; see the module. */
export class WatchRelay {
  readonly stream: ReadableStream<Uint8Array>;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  #buffer = "";
  #ended = false;
  readonly #timers: (() => void)[] = [];

  constructor(
    source: ReadableStream<Uint8Array>,
    readonly net: SimulatedNetwork,
    /** What the trace calls this watch, e.g. `#4 configmaps`. */
    readonly label: string,
    /** Told when the stream has ended, whichever way. */
    readonly onEnd: () => void,
  ) {
    this.#reader = source.getReader();
    this.stream = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
      },
      pull: () => this.#pull(),
      cancel: () => this.#end(undefined, "closed by the operator"),
    }, { highWaterMark: 0 });
    const lifetime = net.after("watchTimeouts", BASE_RATES.watchLifetime);
    if (lifetime !== undefined) {
      this.#timers.push(net.time.schedule(lifetime, () => {
        if (net.strikes("watchTimeouts")) this.close("the server's timeout");
      }));
    }
    const drop = net.after("watchDrops", BASE_RATES.watchDropEvery);
    if (drop !== undefined) {
      this.#timers.push(net.time.schedule(drop, () => {
        if (net.strikes("watchDrops")) this.break("the connection broke");
      }));
    }
  }

  /** End the stream cleanly, as the server does at a watch's timeout. */
  close(why: string): void {
    if (this.#ended) return;
    this.net.trace.add("fault", `watch ${this.label} closed: ${why}`);
    this.#end(undefined, why);
  }

  /** Break the stream: the operator's reads fail. */
  break(why: string): void {
    if (this.#ended) return;
    this.net.trace.add("fault", `watch ${this.label} broken: ${why}`);
    this.#end(new TypeError(`connection reset: ${why}`), why);
  }

  #end(error: Error | undefined, why: string): void {
    if (this.#ended) return;
    this.#ended = true;
    for (const cancel of this.#timers) cancel();
    this.#reader.cancel(why).catch(() => {});
    try {
      if (error) this.#controller.error(error);
      else this.#controller.close();
    } catch {
      // Cancelled by the reader already.
    }
    this.onEnd();
  }

  async #pull(): Promise<void> {
    while (!this.#ended) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await this.#reader.read();
      } catch (error) {
        if (!this.#ended) this.#end(error as Error, "the server's stream failed");
        return;
      }
      if (this.#ended) return;
      if (chunk.done) {
        const rest = this.#buffer.trim();
        this.#buffer = "";
        if (rest !== "" && (await this.#deliver(rest)) && !this.#ended) return;
        if (this.#ended) return;
        this.net.trace.add("watch", `${this.label} ended by the server`);
        this.#end(undefined, "ended by the server");
        return;
      }
      this.#buffer += this.#decoder.decode(chunk.value, { stream: true });
      const lines = this.#buffer.split("\n");
      this.#buffer = lines.pop()!;
      let delivered = false;
      for (const line of lines) {
        if (line.trim() === "") continue;
        if (await this.#deliver(line)) delivered = true;
        if (this.#ended) return;
      }
      if (delivered) return;
    }
  }

  /** Deliver one event line after its latency, unless it is lost; whether it went. */
  async #deliver(line: string): Promise<boolean> {
    const net = this.net;
    const event = describeEvent(line);
    let delay = net.latency(BASE_RATES.eventLatency);
    if (event.type === "BOOKMARK") {
      if (net.roll("bookmarks", BASE_RATES.bookmarkLost)) {
        if (event.initialEnd) {
          // It never comes: the watch ends before it, as at a timeout mid-list.
          this.close("before its initial-events-end bookmark");
          return false;
        }
        net.trace.add("fault", `watch ${this.label} lost ${event.text}`);
        return false;
      }
      if (net.roll("bookmarks", BASE_RATES.bookmarkLate)) {
        delay += net.random.between(...BASE_RATES.eventDelay);
        net.trace.add("fault", `watch ${this.label} delays ${event.text}`);
      }
    } else if (net.roll("watchLag", BASE_RATES.eventLate)) {
      delay += net.random.between(...BASE_RATES.eventDelay);
      net.trace.add("fault", `watch ${this.label} lags: ${event.text}`);
    }
    if (delay > 0) await sleep(delay, undefined, net.time);
    if (this.#ended) return false;
    net.trace.add("watch", `${this.label} ${event.text}`);
    this.#controller.enqueue(encoder.encode(line + "\n"));
    return true;
  }
}
