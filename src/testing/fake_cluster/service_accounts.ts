/**
 * Service-account tokens: the `token` subresource of service accounts (a `TokenRequest`
 * answers with a token bound to the account, as `kubectl create token` asks for), and
 * the token controller, which fills the `data.token` of Secrets of type
 * `kubernetes.io/service-account-token` that name an existing account (the legacy,
 * never-expiring tokens), and deletes such Secrets when their account goes.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../../structs/bodies.ts";
import {
  type Authenticator,
  SERVICE_ACCOUNT_NAME_ANNOTATION,
  SERVICE_ACCOUNT_TOKEN_TYPE,
  SERVICE_ACCOUNT_UID_ANNOTATION,
} from "./authentication.ts";
import { type ExtraSubresource, typeKey } from "../../catalog/resource_types.ts";
import { badRequest, invalid } from "./errors.ts";
import type { Change } from "./history.ts";
import { metaOf, timestamp } from "./metadata.ts";
import type { Objects } from "./objects.ts";
import { isObject } from "./patching.ts";

/** `serviceaccounts/token`, as discovery lists it. */
export const TOKEN_SUBRESOURCE: ExtraSubresource = {
  name: "token",
  group: "authentication.k8s.io",
  version: "v1",
  kind: "TokenRequest",
  verbs: ["create"],
};

const SERVICE_ACCOUNTS = typeKey("", "serviceaccounts");
const SECRETS = typeKey("", "secrets");
/** The shortest and longest lives a TokenRequest may ask for, as the API server allows. */
const MIN_EXPIRATION_SECONDS = 600;
const MAX_EXPIRATION_SECONDS = 2 ** 32;

/** Answer a `TokenRequest` for this service account: its body with the token in `status`. */
export function requestToken(
  account: JsonObject,
  body: JsonValue,
  authenticator: Authenticator,
): JsonObject {
  if (!isObject(body)) throw badRequest("a TokenRequest must be a JSON object");
  const spec = isObject(body.spec) ? body.spec : {};
  const meta = metaOf(account);
  const name = String(meta.name);
  const fail = (message: string) =>
    invalid("TokenRequest.authentication.k8s.io", {
      name,
      group: "authentication.k8s.io",
      plural: "tokenrequests",
    }, [{ field: "spec.expirationSeconds", message }]);
  const seconds = spec.expirationSeconds ?? 3600;
  if (typeof seconds !== "number" || !Number.isInteger(seconds)) {
    throw fail(`Invalid value: ${JSON.stringify(seconds)}: must be a whole number of seconds`);
  }
  if (seconds < MIN_EXPIRATION_SECONDS) {
    throw fail(`Invalid value: ${seconds}: may not specify a duration less than 10 minutes`);
  }
  if (seconds > MAX_EXPIRATION_SECONDS) {
    throw fail(`Invalid value: ${seconds}: may not specify a duration larger than 2^32 seconds`);
  }
  const wanted = Array.isArray(spec.audiences)
    ? spec.audiences.filter((a): a is string => typeof a === "string")
    : [];
  const { token, expires, audiences } = authenticator.issueServiceAccountToken(account, {
    expirationSeconds: seconds,
    audiences: wanted,
  });
  return {
    kind: "TokenRequest",
    apiVersion: "authentication.k8s.io/v1",
    metadata: { name, namespace: String(meta.namespace), creationTimestamp: timestamp() },
    spec: { audiences, expirationSeconds: seconds, boundObjectRef: spec.boundObjectRef ?? null },
    status: { token, expirationTimestamp: timestamp(expires) },
  };
}

function isTokenSecret(object: JsonObject): boolean {
  return object.type === SERVICE_ACCOUNT_TOKEN_TYPE;
}

function accountOf(secret: JsonObject): string {
  const annotations = metaOf(secret).annotations;
  return isObject(annotations) ? String(annotations[SERVICE_ACCOUNT_NAME_ANNOTATION] ?? "") : "";
}

/** The token controller, run after each request with the other controllers. */
export class ServiceAccountTokens {
  /** The namespaces whose token Secrets may need filling in or deleting. */
  readonly #dirty = new Set<string>();

  constructor(
    readonly objects: Objects,
    readonly authenticator: Authenticator,
    /** The CA certificate to put into the Secrets as `ca.crt`, with TLS. */
    readonly caCertificate: string | undefined,
  ) {}

  /** Whether a change may concern the controller (and marks its namespace to visit). */
  matters(change: Change): boolean {
    const concerns = change.typeKey === SERVICE_ACCOUNTS ||
      (change.typeKey === SECRETS && change.type !== "DELETED" && isTokenSecret(change.object) &&
        !(isObject(change.object.data) && change.object.data.token));
    if (concerns) this.#dirty.add(change.namespace);
    return concerns;
  }

  /** Fill in the tokens of the Secrets that wait for one; delete those of deleted accounts. */
  run(): void {
    const store = this.objects.store;
    const secretType = this.objects.catalog.get("", "secrets")!;
    const version = secretType.versions[0];
    for (const namespace of [...this.#dirty]) {
      this.#dirty.delete(namespace);
      for (const secret of store.list(SECRETS, namespace)) {
        if (!isTokenSecret(secret)) continue;
        const meta = metaOf(secret);
        if (meta.deletionTimestamp) continue;
        const name = accountOf(secret);
        const account = name ? store.get(SERVICE_ACCOUNTS, namespace, name) : undefined;
        const annotations = isObject(meta.annotations) ? meta.annotations : {};
        const boundUid = annotations[SERVICE_ACCOUNT_UID_ANNOTATION];
        const uid = account ? String(metaOf(account).uid) : undefined;
        const data = isObject(secret.data) ? secret.data : {};
        if (data.token && (!account || (boundUid && boundUid !== uid))) {
          // The account it was made for is gone: so is its token.
          this.objects.delete({ type: secretType, version, namespace, name: String(meta.name) }, {
            propagationPolicy: "Background",
          });
          continue;
        }
        if (!account || data.token) continue;
        const filled: JsonObject = {
          ...data,
          token: btoa(this.authenticator.legacyToken(namespace, name)),
          namespace: btoa(namespace),
        };
        if (this.caCertificate) filled["ca.crt"] = btoa(this.caCertificate);
        this.objects.system(secretType, {
          ...secret,
          metadata: {
            ...meta,
            annotations: { ...annotations, [SERVICE_ACCOUNT_UID_ANNOTATION]: String(uid) },
          },
          data: filled,
        });
      }
    }
  }
}
