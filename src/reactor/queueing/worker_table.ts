/**
 * The table of the queueing's live workers: one per object, kept per resource and then per
 * object key (no joint key is built per event), with their count and a wait for the moment
 * none is left.
 *
 * @module
 */

import type { Resource } from "../../structs/resources.ts";

/** What the table needs of a worker: whose it is. */
export interface TableEntry {
  /** The object's resource. */
  readonly resource: Resource;
  /** The object's key within the resource. */
  readonly key: string;
}

/** The live workers; see the module docs. */
export class WorkerTable<W extends TableEntry> {
  readonly #byResource = new Map<string, Map<string, W>>();
  #size = 0;
  #depletionWaiters: (() => void)[] = [];

  /** How many workers are alive. */
  get size(): number {
    return this.#size;
  }

  /** The live worker of an object, if any. */
  get(resource: Resource, key: string): W | undefined {
    return this.#byResource.get(resource.key)?.get(key);
  }

  /** Keep a new worker (for an object that has none). */
  add(worker: W): void {
    let siblings = this.#byResource.get(worker.resource.key);
    if (siblings === undefined) this.#byResource.set(worker.resource.key, siblings = new Map());
    siblings.set(worker.key, worker);
    this.#size++;
  }

  /** Whether this very worker is its object's live one (not one ended and replaced). */
  holds(worker: W): boolean {
    return this.get(worker.resource, worker.key) === worker;
  }

  /** Forget the worker, if it is its object's live one; wake the waits for depletion. */
  delete(worker: W): void {
    const siblings = this.#byResource.get(worker.resource.key);
    if (siblings?.get(worker.key) === worker) {
      siblings.delete(worker.key);
      this.#size--;
      if (siblings.size === 0) this.#byResource.delete(worker.resource.key);
    }
    if (this.#size === 0) {
      const waiters = this.#depletionWaiters;
      this.#depletionWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }

  /** All live workers, as a list: the callers may end some while going through it. */
  all(): W[] {
    const all: W[] = [];
    for (const siblings of this.#byResource.values()) {
      for (const worker of siblings.values()) all.push(worker);
    }
    return all;
  }

  /** Resolve when no worker is alive (at once if none is). */
  depleted(): Promise<void> {
    if (this.#size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#depletionWaiters.push(resolve));
  }
}
