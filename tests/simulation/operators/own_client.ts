/**
 * What the scenarios' operators share: an API client of a handler's own, logged in as the
 * operator is (`kopf.loginWithDefaults()`), and the ConfigMaps resource it writes.
 */
import { kopf } from "../../../mod.ts";
import { ApiClient, Vault } from "../../../src/client/mod.ts";

/** Core ConfigMaps, as the client's operations take them. */
export const CONFIGMAPS = new kopf.Resource({
  group: "",
  version: "v1",
  plural: "configmaps",
  kind: "ConfigMap",
  namespaced: true,
});

/** A client for one handler call (`await using`): it reaches whatever the operator reaches. */
export function ownClient(): ApiClient {
  return new ApiClient(
    new Vault({ relogin: async () => ({ own: await kopf.loginWithDefaults() }) }),
  );
}
