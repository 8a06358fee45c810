/**
 * The Kubernetes API client of the framework, on its own: `@kopf/kopf/client`.
 *
 * The operator talks to the cluster only through these: a {@link Vault} of credentials
 * (filled by login functions such as `kopf.loginWithKubeconfig`), an {@link ApiClient}
 * over native `fetch` with retries, re-login on 401 and typed errors (`kopf.APIError`
 * and its kin) and an adaptive limit of requests in flight (whose waiting requests go by
 * {@link RequestPriority}), {@link Discovery} of the served resources, the object operations
 * ({@link applyObject} for server-side apply among them), and {@link watchObjects} (list,
 * then watch, with bookmarks, resumption and 410 re-lists).
 * Handlers that create or change other objects may use them, or any client they like.
 *
 * @example Read and patch an object with the kubeconfig's credentials
 * ```ts
 * import { kopf } from "@kopf/kopf";
 * import { ApiClient, getObject, patchObject, Vault } from "@kopf/kopf/client";
 *
 * const vault = new Vault({
 *   relogin: async () => ({ kubeconfig: await kopf.loginWithKubeconfig() }),
 * });
 * await using api = new ApiClient(vault, { networking: { requestTimeout: 60 } });
 * const pods = new kopf.Resource({ group: "", version: "v1", plural: "pods", namespaced: true });
 * const pod = await getObject(api, pods, { name: "web-0", namespace: "default" });
 * await patchObject(api, pods, { name: "web-0", namespace: "default" }, {
 *   metadata: { labels: { seen: String(pod.metadata?.resourceVersion) } },
 * });
 * ```
 *
 * @module
 */

export { ApiClient, parseRetryAfter } from "./api.ts";
export type {
  ApiClientOptions,
  ApiStream,
  QueryParams,
  RequestOptions,
  StreamOptions,
} from "./api.ts";
export type { NetworkingTuning, WatchingTuning } from "./tuning.ts";
export {
  currentRequestPriority,
  REQUEST_PRIORITIES,
  runWithRequestPriority,
} from "./request_priorities.ts";
export type { RequestPriority } from "./request_priorities.ts";
export { Vault } from "./vault.ts";
export type { LoginResults, ReloginCallback, VaultItem, VaultOptions } from "./vault.ts";
export { Discovery } from "./discovery.ts";
export type { DiscoveredGroup, ServerVersion } from "./discovery.ts";
export {
  applyObject,
  createObject,
  deleteObject,
  getObject,
  listObjects,
  listPages,
  patchObject,
  replaceObject,
} from "./objects.ts";
export { METADATA_ACCEPT, METADATA_LIST_ACCEPT } from "./metadata_only.ts";
export type {
  ApplyObjectOptions,
  CallOptions,
  DeleteObjectOptions,
  GetOptions,
  ListOptions,
  ListPagesOptions,
  ObjectList,
  ObjectPage,
  ObjectRef,
  PatchOptions,
  PatchType,
  WriteOptions,
} from "./objects.ts";
export { watchObjects } from "./watch.ts";
export type {
  ObjectVersion,
  WatchItem,
  WatchObjectsOptions,
  WatchRecoveryOptions,
  WholeWatchItem,
} from "./watch.ts";
export type { BackoffOptions } from "../structs/backoffs.ts";
export type { JsonPatchOperation } from "../structs/patches.ts";
