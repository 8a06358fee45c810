/**
 * The simulated network between the operator and its fake cluster: what all links share --
 * the seed's chance, the virtual time, the trace, the weights of the faults -- and whether
 * the storm is over (`calm`: latency only, so that the operator can settle).
 *
 * @module
 */
import { sleep } from "../../structs/clock.ts";
import type { SeededRandom } from "./seeded_random.ts";
import type { Trace } from "./trace.ts";
import type { VirtualTime } from "./virtual_time.ts";
import { BASE_RATES, type FaultWeights } from "./simulation_faults.ts";

/** The faults with a chance per opportunity (the others are timed). */
type ChanceFault = Exclude<keyof FaultWeights, "latency">;

/** See the module. */
export class SimulatedNetwork {
  /** No more faults: only latency (the storm is over, or was never on). */
  calm = false;

  constructor(
    readonly time: VirtualTime,
    readonly random: SeededRandom,
    readonly trace: Trace,
    readonly weights: FaultWeights,
    /** The fake cluster's router. */
    readonly serve: (request: Request) => Promise<Response>,
    /** The cluster's resourceVersion now. */
    readonly resourceVersion: () => string,
    /**
     * Faults drawn as usual but without effect: the run is the same as with them up to the
     * first moment one would have struck (for shrinking a failure).
     */
    readonly suppressed: ReadonlySet<string> = new Set(),
  ) {}

  /** Whether a fault of this kind, with this base chance, happens now. */
  roll(fault: ChanceFault, chance: number): boolean {
    const weight = this.weights[fault];
    if (this.calm || weight <= 0) return false;
    return this.random.chance(Math.min(1, chance * weight)) && !this.suppressed.has(fault);
  }

  /** Whether a timed fault that is due now strikes: not once calm, nor when suppressed. */
  strikes(fault: ChanceFault): boolean {
    return !this.calm && !this.suppressed.has(fault);
  }

  /**
   * Seconds until a timed fault of this kind, from its mean at weight 1; `undefined` when
   * it is off (or the storm is over).
   */
  after(fault: ChanceFault, mean: number): number | undefined {
    const weight = this.weights[fault];
    if (this.calm || weight <= 0) return undefined;
    return this.random.exponential(mean / weight);
  }

  /** A latency drawn log-uniformly from the range (seconds); none with latency off. */
  latency(range: readonly [number, number]): number {
    const weight = this.weights.latency;
    if (weight <= 0) return 0;
    const [low, high] = range;
    return weight * Math.exp(this.random.between(Math.log(low), Math.log(high)));
  }

  /** Wait a request's (or a reply's) latency on virtual time. */
  async travel(): Promise<void> {
    const seconds = this.latency(BASE_RATES.latency);
    if (seconds > 0) await sleep(seconds, undefined, this.time);
  }
}
