/**
 * Who sends a request: the cluster's own admin token or client certificate (members of
 * `system:masters`), tokens issued for any user by the test API, service-account tokens
 * (from a `TokenRequest`, or the legacy ones the token controller writes into Secrets),
 * or nobody (`system:anonymous`, when RBAC decides what anonymous requests may do).
 * Impersonation headers are honoured for users allowed to `impersonate`.
 *
 * @module
 */
import type { HttpRequestInfo } from "../../platform/http_server.ts";
import type { JsonObject } from "../../structs/bodies.ts";
import { typeKey } from "../../catalog/resource_types.ts";
import { ApiError, badRequest } from "./errors.ts";
import { metaOf } from "./metadata.ts";
import { isObject } from "./patching.ts";
import {
  ALL_AUTHENTICATED,
  ALL_UNAUTHENTICATED,
  ANONYMOUS,
  type Attributes,
  type Decision,
  forbidden,
  serviceAccountGroups,
  serviceAccountUsername,
  splitServiceAccountUsername,
  type UserInfo,
} from "./rbac.ts";
import type { Store } from "./store.ts";

/** The user of the cluster's own admin token. */
export const ADMIN: UserInfo = { username: "admin", groups: ["system:masters", ALL_AUTHENTICATED] };
/** The user of requests without credentials. */
export const ANONYMOUS_USER: UserInfo = { username: ANONYMOUS, groups: [ALL_UNAUTHENTICATED] };
/** The audience of the API server: tokens must be meant for it. */
export const API_AUDIENCE = "https://kubernetes.default.svc.cluster.local";
/** The Secret type whose token the token controller fills in. */
export const SERVICE_ACCOUNT_TOKEN_TYPE = "kubernetes.io/service-account-token";
/** The annotation naming the service account of such a Secret. */
export const SERVICE_ACCOUNT_NAME_ANNOTATION = "kubernetes.io/service-account.name";
/** The annotation with the uid of that service account. */
export const SERVICE_ACCOUNT_UID_ANNOTATION = "kubernetes.io/service-account.uid";

const SERVICE_ACCOUNTS = typeKey("", "serviceaccounts");
const SECRETS = typeKey("", "secrets");

/** A token the cluster issued: for a user, or bound to a service account. */
interface Issued {
  readonly user: UserInfo;
  /** The service account it is bound to: valid while that very account (its uid) exists. */
  readonly serviceAccount?: { namespace: string; name: string; uid: string };
  /** When it stops being valid (milliseconds since the epoch), if ever. */
  readonly expires?: number;
  readonly audiences: readonly string[];
}

/** A token the cluster issued, as the state file keeps it across restarts. */
export interface SavedToken extends Issued {
  /** The token itself. */
  readonly token: string;
}

function base64url(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function randomPart(bytes: number): string {
  const random = crypto.getRandomValues(new Uint8Array(bytes));
  return base64url(String.fromCharCode(...random));
}

/**
 * A token shaped like a Kubernetes service-account JWT, so that tools that decode one
 * find the usual claims. It is recognised by lookup, not by its (random) signature.
 */
function jwtLike(claims: JsonObject): string {
  const header = base64url(JSON.stringify({ alg: "RS256", kid: "kopf-fake-cluster" }));
  return `${header}.${base64url(JSON.stringify(claims))}.${randomPart(32)}`;
}

/** A user's identity with `system:authenticated` added, as the API server adds it. */
function authenticated(user: UserInfo): UserInfo {
  if (user.groups.includes(ALL_AUTHENTICATED) || user.groups.includes(ALL_UNAUTHENTICATED)) {
    return user;
  }
  return { ...user, groups: [...user.groups, ALL_AUTHENTICATED] };
}

/** The identity of a service account. */
export function serviceAccountUser(namespace: string, name: string, uid?: string): UserInfo {
  return {
    username: serviceAccountUsername(namespace, name),
    groups: [...serviceAccountGroups(namespace), ALL_AUTHENTICATED],
    ...(uid ? { uid } : {}),
  };
}

/** Options of {@link Authenticator.issueServiceAccountToken}. */
export interface ServiceAccountTokenOptions {
  /** How long the token is valid (3600 s by default). */
  expirationSeconds?: number;
  /** Whom the token is for; the API server's audience by default. */
  audiences?: readonly string[];
}

/** Authenticates requests and issues tokens. */
export class Authenticator {
  readonly #issued = new Map<string, Issued>();

  constructor(
    readonly store: Store,
    readonly options: {
      /** The admin token now (it changes when a fault expires it). */
      adminToken(): string | undefined;
      /** Whether client certificates of the cluster's CA authenticate. */
      clientCertificates: boolean;
      /** Whether requests without credentials pass as `system:anonymous`. */
      anonymous: boolean;
    },
  ) {}

  /** The tokens issued and not expired, for the state file. */
  issuedTokens(): SavedToken[] {
    const now = Date.now();
    const tokens: SavedToken[] = [];
    for (const [token, issued] of this.#issued) {
      if (issued.expires === undefined || issued.expires > now) tokens.push({ token, ...issued });
    }
    return tokens;
  }

  /** Take back the tokens issued before a restart; the expired ones are dropped. */
  restoreTokens(tokens: readonly SavedToken[]): void {
    const now = Date.now();
    for (const { token, ...issued } of tokens) {
      if (issued.expires === undefined || issued.expires > now) this.#issued.set(token, issued);
    }
  }

  /** A token for any user and groups (`system:authenticated` is added). */
  issueUserToken(user: UserInfo): string {
    const token = jwtLike({ iss: "kopf-fake-cluster", sub: user.username });
    this.#issued.set(token, { user: authenticated(user), audiences: [API_AUDIENCE] });
    return token;
  }

  /**
   * A token bound to a service account, as a `TokenRequest` makes it: it stops working
   * when it expires or when the account is deleted. Returns it with its expiry.
   */
  issueServiceAccountToken(
    account: JsonObject,
    options: ServiceAccountTokenOptions = {},
  ): { token: string; expires: Date; audiences: string[] } {
    const meta = metaOf(account);
    const namespace = String(meta.namespace);
    const name = String(meta.name);
    const uid = String(meta.uid);
    const seconds = options.expirationSeconds ?? 3600;
    const now = Date.now();
    const expires = new Date(now + seconds * 1000);
    const audiences = [...(options.audiences?.length ? options.audiences : [API_AUDIENCE])];
    const token = jwtLike({
      aud: audiences,
      exp: Math.floor(expires.getTime() / 1000),
      iat: Math.floor(now / 1000),
      iss: API_AUDIENCE,
      sub: serviceAccountUsername(namespace, name),
      "kubernetes.io": { namespace, serviceaccount: { name, uid } },
    });
    this.#issued.set(token, {
      user: serviceAccountUser(namespace, name, uid),
      serviceAccount: { namespace, name, uid },
      expires: expires.getTime(),
      audiences,
    });
    return { token, expires, audiences };
  }

  /** A token for a legacy service-account token Secret (never expires). */
  legacyToken(namespace: string, account: string): string {
    return jwtLike({
      iss: "kubernetes/serviceaccount",
      "kubernetes.io/serviceaccount/namespace": namespace,
      "kubernetes.io/serviceaccount/service-account.name": account,
      sub: serviceAccountUsername(namespace, account),
    });
  }

  /**
   * Who presented this token, or undefined if it is not (or no longer) valid for the API
   * server (or for one of `audiences`, as a TokenReview asks).
   */
  userOfToken(token: string, audiences: readonly string[] = [API_AUDIENCE]): UserInfo | undefined {
    const admin = this.options.adminToken();
    if (admin !== undefined && token === admin) return ADMIN;
    const issued = this.#issued.get(token);
    if (issued) {
      if (issued.expires !== undefined && Date.now() >= issued.expires) {
        this.#issued.delete(token);
        return undefined;
      }
      if (!issued.audiences.some((a) => audiences.includes(a))) return undefined;
      const sa = issued.serviceAccount;
      if (sa) {
        const account = this.store.get(SERVICE_ACCOUNTS, sa.namespace, sa.name);
        if (!account || metaOf(account).uid !== sa.uid) return undefined;
      }
      return issued.user;
    }
    return audiences.includes(API_AUDIENCE) ? this.#legacyUser(token) : undefined;
  }

  /** The service account whose token Secret holds this token, if the account exists. */
  #legacyUser(token: string): UserInfo | undefined {
    const encoded = btoa(token);
    for (const secret of this.store.list(SECRETS)) {
      if (secret.type !== SERVICE_ACCOUNT_TOKEN_TYPE) continue;
      if (!isObject(secret.data) || secret.data.token !== encoded) continue;
      const meta = metaOf(secret);
      const annotations = isObject(meta.annotations) ? meta.annotations : {};
      const namespace = String(meta.namespace);
      const name = String(annotations[SERVICE_ACCOUNT_NAME_ANNOTATION] ?? "");
      const account = this.store.get(SERVICE_ACCOUNTS, namespace, name);
      if (!account) return undefined;
      const uid = annotations[SERVICE_ACCOUNT_UID_ANNOTATION];
      if (typeof uid === "string" && uid && uid !== metaOf(account).uid) return undefined;
      return serviceAccountUser(namespace, name, String(metaOf(account).uid));
    }
    return undefined;
  }

  /**
   * Who sends the request: by client certificate, by bearer token, or nobody. A token
   * that is not valid is a 401, as is a missing one where anonymous requests are off.
   */
  authenticate(request: Request, info?: HttpRequestInfo): UserInfo {
    const peer = info?.peerCertificate;
    if (this.options.clientCertificates && peer?.authorized) {
      return peer.commonName
        ? authenticated({ username: peer.commonName, groups: [...peer.organizations] })
        : ADMIN;
    }
    const required = this.options.adminToken() !== undefined || this.options.clientCertificates;
    const header = request.headers.get("authorization") ?? "";
    const match = /^bearer\s+(\S+)\s*$/i.exec(header);
    if (match) {
      const user = this.userOfToken(match[1]);
      if (user) return user;
      // An open cluster (no credentials required, none checked) lets anything in.
      if (!required && !this.options.anonymous) return ADMIN;
      throw new ApiError(401, "Unauthorized");
    }
    if (this.options.anonymous) return ANONYMOUS_USER;
    if (!required) return ADMIN;
    throw new ApiError(401, "Unauthorized");
  }
}

/**
 * The user the request acts as: the authenticated one, or the one its `Impersonate-User`
 * (and `Impersonate-Group`, `Impersonate-Uid`, `Impersonate-Extra-*`) headers name, if
 * the authenticated user may `impersonate` each of them. Refused: a 403 naming what.
 */
export function impersonate(
  user: UserInfo,
  headers: Headers,
  authorize: (attributes: Attributes) => Decision,
): UserInfo {
  const wanted = headers.get("impersonate-user") ?? "";
  const groups = (headers.get("impersonate-group") ?? "").split(",").map((g) => g.trim())
    .filter(Boolean);
  const uid = headers.get("impersonate-uid") ?? "";
  const extra: Record<string, string[]> = {};
  for (const [key, value] of headers) {
    if (!key.startsWith("impersonate-extra-")) continue;
    extra[decodeURIComponent(key.slice("impersonate-extra-".length))] = value.split(",").map((v) =>
      v.trim()
    );
  }
  const extraKeys = Object.keys(extra);
  if (!wanted) {
    if (groups.length || uid || extraKeys.length) {
      throw badRequest("impersonating groups, a uid or extra fields needs Impersonate-User too");
    }
    return user;
  }
  const check = (attributes: Omit<Attributes, "user" | "verb" | "resourceRequest">) => {
    const full: Attributes = { user, verb: "impersonate", resourceRequest: true, ...attributes };
    const decision = authorize(full);
    if (!decision.allowed) throw forbidden(full, decision.reason);
  };
  const account = splitServiceAccountUsername(wanted);
  if (account) {
    check({ apiGroup: "", resource: "serviceaccounts", ...account });
  } else {
    check({ apiGroup: "", resource: "users", name: wanted });
  }
  for (const group of groups) check({ apiGroup: "", resource: "groups", name: group });
  if (uid) check({ apiGroup: "authentication.k8s.io", resource: "uids", name: uid });
  for (const key of extraKeys) {
    for (const value of extra[key]) {
      check({
        apiGroup: "authentication.k8s.io",
        resource: "userextras",
        subresource: key,
        name: value,
      });
    }
  }
  let finalGroups = groups.length ? groups : account ? serviceAccountGroups(account.namespace) : [];
  // Without groups named, a user other than anonymous is an authenticated one.
  if (
    !groups.length && wanted !== ANONYMOUS &&
    !finalGroups.includes(ALL_AUTHENTICATED) && !finalGroups.includes(ALL_UNAUTHENTICATED)
  ) {
    finalGroups = [...finalGroups, ALL_AUTHENTICATED];
  }
  return {
    username: wanted,
    groups: finalGroups,
    ...(uid ? { uid } : {}),
    ...(extraKeys.length ? { extra } : {}),
  };
}
