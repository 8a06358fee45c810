/**
 * A fair queue: items wait in lanes served by priority, and within a lane the tenants take
 * turns (round-robin), each tenant's items in arrival order.
 *
 * Lanes age rather than starve: each lane has a handicap in seconds (the first lane's is
 * usually 0), and the lane served next is the one whose oldest item has the earliest arrival
 * time plus handicap. An item of a lane with a 5-second handicap thus goes after the first
 * lane's items that arrived up to 5 seconds after it, and before those that came later:
 * lower lanes are served later, never starved, and an old item of the first lane is not
 * starved by aged items of the others either.
 *
 * Within the lane chosen, the turn is the next tenant's, whatever the arrival order across
 * tenants: a tenant with 20,000 items waiting and one with 10 take turns, so the second's
 * wait is bounded by the number of tenants, not by the first's burst. A tenant that comes
 * (or comes back) joins the end of the round.
 *
 * The items carry their own links ({@link FairItem}): thousands may wait at once, so no
 * wrapper or array is made per item, and any item leaves in O(1) (e.g. an abandoned wait).
 *
 * @module
 */

/** An item of a {@link FairQueue}: extend it; the queue keeps its links on it. */
export class FairItem {
  /** When it began to wait (the queue's clock), for the lanes' aging. */
  since = 0;
  /** Its lane, while queued. */
  lane = 0;
  /** Older and newer items of its lane, across its tenants. */
  older: FairItem | undefined = undefined;
  newer: FairItem | undefined = undefined;
  /** The previous and next items of its tenant in its lane. */
  before: FairItem | undefined = undefined;
  after: FairItem | undefined = undefined;
  /** Its tenant's queue in its lane, while queued. */
  tenant: TenantQueue | undefined = undefined;
}

/** How a {@link FairQueue}'s lanes age: see the module docs. */
export interface FairLanes {
  /** Each lane's handicap in seconds, in the order of priority (the first lane's usually 0). */
  readonly handicaps: readonly number[];
  /** The time in seconds (a clock's). */
  readonly now: () => number;
}

/** One tenant's items in one lane, and its place in the lane's round of tenants. */
class TenantQueue {
  head: FairItem | undefined = undefined;
  tail: FairItem | undefined = undefined;
  /** The round of tenants that have items in the lane: a ring. */
  next: TenantQueue = this;
  prev: TenantQueue = this;

  constructor(readonly key: string) {}
}

/** One lane: its items in arrival order, its tenants and whose turn it is. */
class Lane {
  oldest: FairItem | undefined = undefined;
  newest: FairItem | undefined = undefined;
  readonly tenants = new Map<string, TenantQueue>();
  /** The tenant whose turn is next; `undefined` while the lane is empty. */
  turn: TenantQueue | undefined = undefined;

  constructor(readonly handicap: number) {}
}

/** A fair queue of items; see the module docs. */
export class FairQueue<T extends FairItem> {
  readonly #lanes: Lane[];
  readonly #now: () => number;
  #size = 0;

  /** A queue with these lanes; without, one lane (then it is a plain FIFO per tenant). */
  constructor(lanes?: FairLanes) {
    const handicaps = lanes?.handicaps ?? [0];
    if (handicaps.length === 0 || !handicaps.every((h) => Number.isFinite(h) && h >= 0)) {
      throw new RangeError(`A fair queue's handicaps must be seconds \u2265 0, got ${handicaps}.`);
    }
    this.#lanes = handicaps.map((handicap) => new Lane(handicap));
    this.#now = lanes?.now ?? (() => 0);
  }

  /** How many items wait. */
  get size(): number {
    return this.#size;
  }

  /** How many lanes there are. */
  get lanes(): number {
    return this.#lanes.length;
  }

  /** Whether nothing waits. */
  get empty(): boolean {
    return this.#size === 0;
  }

  /** Queue an item in a lane (clamped to the lanes there are) for a tenant. */
  push(item: T, lane = 0, tenant = ""): void {
    const index = Math.min(Math.max(0, lane | 0), this.#lanes.length - 1);
    const queue = this.#lanes[index];
    item.lane = index;
    item.since = this.#now();
    // In the lane's arrival order.
    item.older = queue.newest;
    item.newer = undefined;
    if (queue.newest === undefined) queue.oldest = item;
    else queue.newest.newer = item;
    queue.newest = item;
    // In its tenant's queue, the tenant joining the round if it has just come.
    let own = queue.tenants.get(tenant);
    if (own === undefined) {
      queue.tenants.set(tenant, own = new TenantQueue(tenant));
      joinRound(queue, own);
    }
    item.tenant = own;
    item.before = own.tail;
    item.after = undefined;
    if (own.tail === undefined) own.head = item;
    else own.tail.after = item;
    own.tail = item;
    this.#size++;
  }

  /** The next item by lane and turn (see the module docs), taken out; none if empty. */
  shift(): T | undefined {
    const lane = this.#nextLane();
    const tenant = lane?.turn;
    if (tenant === undefined) return undefined;
    const item = tenant.head!;
    lane!.turn = tenant.next; // the next tenant's turn, even if this one stays
    this.remove(item as T);
    return item as T;
  }

  /**
   * Move a waiting item of this queue to a lane before its own (a newer reason to wait
   * there): it joins that lane as it arrives now, in its tenant's turns. False if it does not
   * wait here, or waits in that lane or a higher one already.
   */
  promote(item: T, lane: number): boolean {
    const tenant = item.tenant;
    if (tenant === undefined || lane >= item.lane) return false;
    if (this.#lanes[item.lane]?.tenants.get(tenant.key) !== tenant) return false;
    this.remove(item);
    this.push(item, lane, tenant.key);
    return true;
  }

  /** Take an item out wherever it waits; nothing happens if it is not queued. */
  remove(item: T): void {
    const tenant = item.tenant;
    if (tenant === undefined) return;
    const lane = this.#lanes[item.lane];
    if (item.older === undefined) lane.oldest = item.newer;
    else item.older.newer = item.newer;
    if (item.newer === undefined) lane.newest = item.older;
    else item.newer.older = item.older;
    if (item.before === undefined) tenant.head = item.after;
    else item.before.after = item.after;
    if (item.after === undefined) tenant.tail = item.before;
    else item.after.before = item.before;
    item.older =
      item.newer =
      item.before =
      item.after =
      item.tenant =
        undefined;
    if (tenant.head === undefined) leaveRound(lane, tenant);
    this.#size--;
  }

  /** The lane whose oldest item is due first (arrival plus handicap); ties to the higher. */
  #nextLane(): Lane | undefined {
    // Indexed, and the sums only where two lanes wait: this runs on every place taken.
    const lanes = this.#lanes;
    let best: Lane | undefined;
    let due = Infinity;
    for (let i = 0; i < lanes.length; i++) {
      const lane = lanes[i];
      const oldest = lane.oldest;
      if (oldest === undefined) continue;
      if (best === undefined) {
        best = lane;
        continue;
      }
      if (due === Infinity) due = best.oldest!.since + best.handicap;
      const at = oldest.since + lane.handicap;
      if (at < due) {
        best = lane;
        due = at;
      }
    }
    return best;
  }
}

/** A tenant joins the lane's round: last, just before the tenant whose turn is next. */
function joinRound(lane: Lane, tenant: TenantQueue): void {
  const turn = lane.turn;
  if (turn === undefined) {
    lane.turn = tenant;
    return;
  }
  tenant.next = turn;
  tenant.prev = turn.prev;
  turn.prev.next = tenant;
  turn.prev = tenant;
}

/** A tenant with no items left leaves the lane's round (and the lane forgets it). */
function leaveRound(lane: Lane, tenant: TenantQueue): void {
  lane.tenants.delete(tenant.key);
  if (tenant.next === tenant) {
    lane.turn = undefined;
  } else {
    tenant.prev.next = tenant.next;
    tenant.next.prev = tenant.prev;
    if (lane.turn === tenant) lane.turn = tenant.next;
  }
  tenant.next = tenant.prev = tenant;
}
