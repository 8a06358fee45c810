/**
 * The fake Kubernetes API server of the testing kit.
 *
 * @module
 */
export { FakeCluster } from "./cluster.ts";
export type { FakeClusterOptions, FakeTokenOptions, FakeUser } from "./cluster_options.ts";
export {
  FakeApiError,
  type FakeApplyOptions,
  type FakeCreateOptions,
  type FakeDeleteOptions,
  type FakeListOptions,
  type FakeObject,
  type FakeObjectOptions,
  type FakePatchOptions,
  type FakeReplaceOptions,
  type FakeResource,
  type FakeWaitOptions,
  type FakeWriteOptions,
} from "./direct_api.ts";
export type { AdmissionCall } from "./admission.ts";
export { type FailRequestsOptions, FakeClusterFaults, type LoseRepliesOptions } from "./faults.ts";
export type { ServedRequest } from "./request_log.ts";
export type {
  FakeClusterTraffic,
  FlowControlCounts,
  TrafficCounts,
  TrafficTally,
} from "./traffic.ts";
