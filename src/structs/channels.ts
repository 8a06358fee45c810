/**
 * Announcements from one part of the operator to another, pulled rather than pushed: the
 * part that changes state sends into a {@link Channel}; the part that reacts iterates it.
 * So a lower layer (an engine) announces its changes without calling into the layer above
 * it, and nothing is handed down to be called back.
 *
 * @module
 */

/**
 * An unbounded queue of values from producers to one consumer, which iterates it with
 * `for await`; the iteration ends once the channel is closed and emptied. Values sent
 * before the consumer begins are kept for it.
 */
export class Channel<T> implements AsyncIterable<T> {
  #values: T[] = [];
  #waiter: ((result: IteratorResult<T>) => void) | undefined;
  #closed = false;
  #iterated = false;

  /** Queue a value for the consumer (ignored once the channel is closed). */
  send(value: T): void {
    if (this.#closed) return;
    const waiter = this.#waiter;
    if (waiter !== undefined) {
      this.#waiter = undefined;
      waiter({ value, done: false });
    } else {
      this.#values.push(value);
    }
  }

  /** End the iteration once the values sent so far are taken. */
  close(): void {
    this.#closed = true;
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.({ value: undefined, done: true });
  }

  /** Whether {@link Channel.close} was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /** The one iteration of the channel; a second one is refused. */
  [Symbol.asyncIterator](): AsyncIterator<T> {
    if (this.#iterated) throw new Error("A channel has one consumer only.");
    this.#iterated = true;
    return {
      next: (): Promise<IteratorResult<T>> => {
        if (this.#values.length > 0) {
          return Promise.resolve({ value: this.#values.shift()!, done: false });
        }
        if (this.#closed) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => (this.#waiter = resolve));
      },
      return: (): Promise<IteratorResult<T>> => {
        this.close();
        this.#values = [];
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
