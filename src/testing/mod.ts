/**
 * The testing kit: an in-memory Kubernetes API server (`FakeCluster`) and a runner for
 * operators in tests (`KopfRunner`).
 *
 * @module
 */

export * from "./fake_cluster/mod.ts";
export type { RequestResource } from "./fake_cluster/faults.ts";
export type { CertificatePem } from "../platform/certificates.ts";
export {
  type ConnectionSource,
  KopfRunner,
  KopfRunnerError,
  type KopfRunnerOptions,
  type WaitForOutputOptions,
} from "./runner.ts";
export { simulate } from "./simulation/simulate.ts";
export type {
  Invariant,
  Scenario,
  ShrunkFailure,
  Simulation,
  SimulationFailure,
  SimulationOptions,
  SimulationReport,
  SimulationRun,
} from "./simulation/simulation_types.ts";
export type { SimulationFaults } from "./simulation/simulation_faults.ts";
