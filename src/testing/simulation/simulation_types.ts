/**
 * The public shapes of the simulation: its options, what a scenario and an invariant are
 * given, and the report.
 *
 * @module
 */
import type { RawBody } from "../../structs/bodies.ts";
import type { OperatorSettings } from "../../settings/operator_settings.ts";
import type { OperatorRegistry } from "../../intents/registry.ts";
import type { FakeCluster } from "../fake_cluster/cluster.ts";
import type { SimulationFaults } from "./simulation_faults.ts";

/** What a scenario and the invariants are given: the simulated world of one seed. */
export interface Simulation {
  /** The simulated cluster's direct API (create, get, patch, delete...); what it does is traced. */
  readonly cluster: FakeCluster;
  /** The seed of this run. */
  readonly seed: number;
  /** Seconds of simulated time since the run started. */
  now(): number;
  /** Let `seconds` of simulated time pass (the operator works meanwhile). */
  sleep(seconds: number): Promise<void>;
  /** A number in [0, 1) from the run's seed: a scenario's own choices replay too. */
  random(): number;
  /** Add a line of the scenario's own to the trace. */
  log(text: string): void;
}

/**
 * An invariant: a function of the simulated cluster that returns (or resolves to) a
 * message when it is broken, and nothing when it holds.
 */
export type Invariant = (
  sim: Simulation,
) => string | undefined | void | Promise<string | undefined | void>;

/** A scenario: drives the cluster over simulated time. */
export type Scenario = (sim: Simulation) => void | Promise<void>;

/** Options of {@link simulate}. */
export interface SimulationOptions {
  /**
   * The operator: a module file that registers handlers (as `kopf run` takes it; a path
   * relative to the working directory, or a `file:` URL), imported afresh for each seed; or
   * a function that makes a registry with the handlers, called for each seed; or a registry.
   * Fresh for each seed, the module's (or the function's) own state -- a client it keeps, a
   * counter -- starts anew, as in a new process, so that a seed runs the same alone as
   * among others. A registry given as it is keeps what its handlers' closures hold from one
   * seed to the next.
   */
  readonly operator: string | URL | OperatorRegistry | (() => OperatorRegistry);
  /** Objects created before the operator starts (e.g. its CustomResourceDefinitions). */
  readonly resources?: readonly RawBody[];
  /** Run this one seed (e.g. to replay a failure). */
  readonly seed?: number;
  /** Run this many seeds, from {@link firstSeed} up (1 run of seed 1 by default). */
  readonly seeds?: number;
  /** The first of the {@link seeds} (1 by default). */
  readonly firstSeed?: number;
  /** What happens in the cluster: creations, patches, deletions, sleeps. */
  readonly scenario: Scenario;
  /**
   * Simulated seconds after the scenario before the invariants are checked (600 by
   * default). Faults stop halfway through: the second half lets the operator settle.
   */
  readonly settle?: number;
  /** The user's invariants, checked after the settling (after each scenario's own). */
  readonly invariants?: readonly Invariant[];
  /**
   * Also check the user's invariants after every step of the simulation (every timer
   * fired), not only at the end: the first moment one breaks is then reported.
   */
  readonly checkEveryStep?: boolean;
  /**
   * Check the built-in invariants (true by default): no object stuck deleting, no handler
   * left retrying, every object's handlers have seen its last spec.
   */
  readonly builtinInvariants?: boolean;
  /** What may go wrong, and how often; all on by default, `false` for none. */
  readonly faults?: SimulationFaults | false;
  /** The operator's settings (each process starts with them). */
  readonly settings?: OperatorSettings;
  /**
   * How many replicas of the operator run at once (1 by default): with leader election or
   * sharding in the settings, they coordinate through Leases, and the `takeovers` fault
   * stops the leader now and then.
   */
  readonly replicas?: number;
  /** The namespaces served; the whole cluster by default. */
  readonly namespaces?: readonly string[];
  /** Put the operator's debug lines in the trace too. */
  readonly verbose?: boolean;
  /**
   * The most simulated seconds a scenario may take (86,400 by default): one that waits for
   * ever fails instead of running for ever.
   */
  readonly scenarioTimeLimit?: number;
  /** Told after each seed, e.g. to print progress. */
  readonly onRun?: (run: SimulationRun) => void;
  /**
   * Kinds of faults drawn as usual but without effect: the run is the seed's own up to the
   * first moment one of them would have struck. What {@link shrink} finds is replayed so.
   */
  readonly suppress?: readonly (keyof SimulationFaults)[];
  /**
   * For each failing seed, look for the fewest kinds of faults it still fails with: each
   * kind is suppressed in turn (see {@link suppress}), and stays so if the seed still
   * breaks the same invariant (see {@link SimulationFailure.shrunk}). Costs a run per kind
   * of fault.
   */
  readonly shrink?: boolean;
  /** Stop at the first failing seed. */
  readonly stopAtFailure?: boolean;
}

/** One seed's run, as {@link SimulationOptions.onRun} is told it. */
export interface SimulationRun {
  /** The seed. */
  readonly seed: number;
  /** How many seeds have run so far, this one included. */
  readonly done: number;
  /** How many seeds will run in all. */
  readonly total: number;
  /** The failure of this seed, if any. */
  readonly failure: SimulationFailure | undefined;
  /** Simulated seconds the run took. */
  readonly simulated: number;
  /** Timers fired: the steps of the run. */
  readonly steps: number;
}

/** A seed whose run broke an invariant. */
export interface SimulationFailure {
  /** The seed: `simulate({ ..., seed })` replays the run exactly. */
  readonly seed: number;
  /** The name of the invariant broken (a function's name, or a built-in's). */
  readonly invariant: string;
  /** What the invariant said. */
  readonly message: string;
  /**
   * What happened, line by line on simulated time: requests and answers, watch events,
   * faults, the operator's processes and log lines; the same for a replay of the seed.
   */
  readonly trace: string;
  /**
   * With {@link SimulationOptions.shrink}: the seed's failure with the fewest kinds of
   * faults found -- those suppressed still break the same invariant (replay with
   * `simulate({ ..., seed, suppress })`), its message and its trace.
   */
  readonly shrunk?: ShrunkFailure;
}

/** A failure again, with fewer kinds of faults; see {@link SimulationFailure.shrunk}. */
export interface ShrunkFailure {
  /** The kinds of faults suppressed (the seed's own suppressed ones included). */
  readonly suppress: readonly (keyof SimulationFaults)[];
  /** The kinds of faults that struck and are needed for the failure. */
  readonly needed: readonly (keyof SimulationFaults)[];
  /** What the invariant said in this run. */
  readonly message: string;
  /** The trace of this run. */
  readonly trace: string;
}

/** What {@link simulate} found. */
export interface SimulationReport {
  /** How many seeds ran. */
  readonly runs: number;
  /** The seeds that broke an invariant, in the order they ran. */
  readonly failures: readonly SimulationFailure[];
}
