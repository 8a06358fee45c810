/**
 * The posting of Kubernetes Events as a runnable: one poster per operator, draining the
 * queue that the handlers' loggers and `kopf.event()` fill. Everything that starts after it
 * runs where its queue is the posting target, so that events reach this operator's poster
 * even with several operators in one process. Stopped after the cleanup handlers, whose
 * events it still posts.
 *
 * @module
 */

import { runWithPostingTarget } from "../../handling/posting_queue.ts";
import { type EventPosting, startEventPoster } from "../../engines/posting.ts";
import type { OperatorParts } from "../operator_parts.ts";
import type { Runnable } from "../manager.ts";
import type { ClientRunnable } from "./client_runnable.ts";

/** The event poster; see the module docs. */
export class PostingRunnable implements Runnable {
  readonly name = "event posting";
  readonly after: readonly Runnable[];
  readonly #parts: OperatorParts;
  readonly #client: ClientRunnable;
  readonly #stop = new AbortController();
  #posting: EventPosting | undefined;

  /** The poster of the operator, posting through the client. */
  constructor(parts: OperatorParts, client: ClientRunnable) {
    this.#parts = parts;
    this.#client = client;
    this.after = [client];
  }

  /** Start posting. */
  start(): void {
    this.#posting = startEventPoster({
      creator: this.#client.api,
      settings: this.#parts.settings,
      clock: this.#parts.clock,
      signal: this.#stop.signal,
    });
  }

  /** Run what comes after with this operator's queue as the posting target. */
  enclose<T>(fn: () => T): T {
    const posting = this.#posting;
    return posting === undefined ? fn() : runWithPostingTarget(posting.target, fn);
  }

  /** Post what is queued, then stop. */
  async stop(): Promise<void> {
    this.#stop.abort();
    await this.#posting?.done;
  }
}
