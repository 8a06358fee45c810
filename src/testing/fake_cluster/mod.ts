/**
 * The fake Kubernetes API server of the testing kit.
 *
 * @module
 */
export {
  FakeApiError,
  FakeCluster,
  type FakeClusterOptions,
  type FakeDeleteOptions,
  type FakeListOptions,
  type FakeObjectOptions,
  type FakePatchOptions,
  type FakeResource,
  type FakeTokenOptions,
  type FakeUser,
  type FakeWaitOptions,
} from "./cluster.ts";
export type { AdmissionCall } from "./admission.ts";
export { type FailRequestsOptions, FakeClusterFaults, type LoseRepliesOptions } from "./faults.ts";
export type { ServedRequest } from "./http.ts";
