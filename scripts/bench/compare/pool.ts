/**
 * A first-in-first-out queue served by a fixed number of workers: how the plain controllers
 * of the comparison limit their concurrent PATCH requests.
 */
export class WorkPool<T> {
  #items: T[] = [];
  #head = 0;
  #idle: Array<() => void> = [];

  constructor(size: number, work: (item: T) => Promise<void>) {
    for (let i = 0; i < size; i++) this.#worker(work);
  }

  push(item: T): void {
    this.#items.push(item);
    this.#idle.pop()?.();
  }

  async #worker(work: (item: T) => Promise<void>): Promise<void> {
    for (;;) {
      if (this.#head === this.#items.length) {
        await new Promise<void>((resolve) => this.#idle.push(resolve));
        continue;
      }
      const item = this.#items[this.#head++];
      // Drop the served head now and then, rather than shifting the array each time.
      if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
        this.#items = this.#items.slice(this.#head);
        this.#head = 0;
      }
      try {
        await work(item);
      } catch (error) {
        console.error(error);
      }
    }
  }
}

/** The pool size of the plain controllers: `KOPF_BENCH_COMPARE_POOL`, 16 by default. */
export function poolSize(): number {
  return Number(Deno.env.get("KOPF_BENCH_COMPARE_POOL") ?? 16);
}

/**
 * Whether the bench serves the CRD with its status subresource (`KOPF_BENCH_COMPARE_STATUS`
 * is not `none`): then the plain controllers patch `…/status`, else the object itself.
 */
export function statusSubresource(): boolean {
  return Deno.env.get("KOPF_BENCH_COMPARE_STATUS") !== "none";
}
