/**
 * The review APIs, which store nothing and answer a question: may this user do that
 * (`SelfSubjectAccessReview`, `SubjectAccessReview`, `LocalSubjectAccessReview` — what
 * `kubectl auth can-i` asks), what may I do here (`SelfSubjectRulesReview` — `kubectl
 * auth can-i --list`), who am I (`SelfSubjectReview` — `kubectl auth whoami`), and whose
 * is this token (`TokenReview`).
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../../structs/bodies.ts";
import type { Authenticator } from "./authentication.ts";
import type { ResourceType } from "../../catalog/resource_types.ts";
import { badRequest, type Cause, invalid } from "./errors.ts";
import { isObject } from "./patching.ts";
import type { Attributes, PolicyRule, RbacAuthorizer, UserInfo } from "./rbac.ts";

const AUTHORIZATION = "authorization.k8s.io";
const AUTHENTICATION = "authentication.k8s.io";

function reviewType(group: string, kind: string, namespaced = false): ResourceType {
  return {
    group,
    plural: `${kind.toLowerCase()}s`,
    singular: kind.toLowerCase(),
    kind,
    listKind: `${kind}List`,
    shortNames: [],
    categories: [],
    namespaced,
    verbs: ["create"],
    versions: [{ name: "v1", storage: true, status: false, columns: [], selectableFields: [] }],
    builtin: true,
    generation: false,
    virtual: true,
  };
}

/** The review resources, as discovery lists them: create-only, never stored. */
export function reviewTypes(): ResourceType[] {
  return [
    reviewType(AUTHORIZATION, "LocalSubjectAccessReview", true),
    reviewType(AUTHORIZATION, "SelfSubjectAccessReview"),
    reviewType(AUTHORIZATION, "SelfSubjectRulesReview"),
    reviewType(AUTHORIZATION, "SubjectAccessReview"),
    reviewType(AUTHENTICATION, "SelfSubjectReview"),
    reviewType(AUTHENTICATION, "TokenReview"),
  ];
}

/** What answering a review needs from the cluster. */
export interface ReviewContext {
  readonly authorizer: RbacAuthorizer;
  readonly authenticator: Authenticator;
}

function str(value: JsonValue | undefined): string {
  return typeof value === "string" ? value : "";
}

function strings(value: JsonValue | undefined): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/** The user as a review's `status.userInfo`/`status.user` shows it. */
function userInfoOf(user: UserInfo): JsonObject {
  const info: JsonObject = { username: user.username };
  if (user.uid) info.uid = user.uid;
  info.groups = [...user.groups];
  if (user.extra && Object.keys(user.extra).length) {
    info.extra = Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]]));
  }
  return info;
}

/** The attributes an access review's spec asks about, or the causes of its being invalid. */
function attributesOf(
  spec: JsonObject,
  user: UserInfo,
): { attributes?: Attributes; causes: Cause[] } {
  const resource = spec.resourceAttributes;
  const nonResource = spec.nonResourceAttributes;
  const given = (v: JsonValue | undefined) => v !== undefined && v !== null;
  if (given(resource) && given(nonResource)) {
    return {
      causes: [{
        field: "spec.nonResourceAttributes",
        message: `Invalid value: ${
          JSON.stringify(nonResource)
        }: cannot be specified in combination with resourceAttributes`,
      }],
    };
  }
  if (isObject(resource)) {
    return {
      attributes: {
        user,
        verb: str(resource.verb),
        resourceRequest: true,
        namespace: str(resource.namespace),
        apiGroup: str(resource.group),
        apiVersion: str(resource.version) || "*",
        resource: str(resource.resource),
        subresource: str(resource.subresource),
        name: str(resource.name),
      },
      causes: [],
    };
  }
  if (isObject(nonResource)) {
    return {
      attributes: {
        user,
        verb: str(nonResource.verb),
        resourceRequest: false,
        path: str(nonResource.path),
      },
      causes: [],
    };
  }
  return {
    causes: [{
      field: "spec.resourceAttributes",
      message:
        "Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified",
    }],
  };
}

function ruleOf(rule: PolicyRule, resource: boolean): JsonObject {
  const out: JsonObject = { verbs: [...rule.verbs] };
  const add = (key: string, list: readonly string[] | undefined) => {
    if (list?.length) out[key] = [...list];
  };
  if (resource) {
    add("apiGroups", rule.apiGroups);
    add("resources", rule.resources);
    add("resourceNames", rule.resourceNames);
  } else {
    add("nonResourceURLs", rule.nonResourceURLs);
  }
  return out;
}

/**
 * Answer a review posted by `user` (to `namespace`, for the namespaced one): the body
 * given back with its `status`, as the API server answers with 201.
 */
export function answerReview(
  type: ResourceType,
  namespace: string | undefined,
  body: JsonValue,
  user: UserInfo,
  ctx: ReviewContext,
): JsonObject {
  if (!isObject(body)) throw badRequest(`a ${type.kind} must be a JSON object`);
  const spec = isObject(body.spec) ? body.spec : {};
  const metadata = isObject(body.metadata) ? { ...body.metadata } : {};
  const kind = `${type.kind}.${type.group}`;
  const fail = (causes: Cause[]) =>
    invalid(kind, { name: str(metadata.name), group: type.group, plural: type.plural }, causes);
  const answer = (status: JsonObject): JsonObject => ({
    kind: type.kind,
    apiVersion: `${type.group}/v1`,
    metadata: { creationTimestamp: null, ...metadata },
    spec,
    status,
  });
  const decide = (attributes: Attributes): JsonObject => {
    const decision = ctx.authorizer.authorize(attributes);
    const status: JsonObject = { allowed: decision.allowed };
    if (decision.reason) status.reason = decision.reason;
    return status;
  };
  switch (type.kind) {
    case "SelfSubjectAccessReview": {
      const { attributes, causes } = attributesOf(spec, user);
      if (!attributes) throw fail(causes);
      return answer(decide(attributes));
    }
    case "SubjectAccessReview":
    case "LocalSubjectAccessReview": {
      const subject: UserInfo = {
        username: str(spec.user),
        groups: strings(spec.groups),
        ...(str(spec.uid) ? { uid: str(spec.uid) } : {}),
        ...(isObject(spec.extra)
          ? {
            extra: Object.fromEntries(
              Object.entries(spec.extra).map(([k, v]) => [k, strings(v)]),
            ),
          }
          : {}),
      };
      const asked = attributesOf(spec, subject);
      const causes = asked.causes;
      let attributes = asked.attributes;
      // A local review's empty namespace means the one it was posted to.
      if (type.kind === "LocalSubjectAccessReview" && attributes?.resourceRequest) {
        if (!attributes.namespace) attributes = { ...attributes, namespace: namespace ?? "" };
      }
      if (!subject.username && !subject.groups.length) {
        causes.push({
          field: "spec.user",
          message: 'Invalid value: "": at least one of user or group must be specified',
        });
      }
      if (type.kind === "LocalSubjectAccessReview" && attributes) {
        if (!attributes.resourceRequest) {
          causes.push({
            field: "spec.nonResourceAttributes",
            message: `Invalid value: ${
              JSON.stringify(spec.nonResourceAttributes)
            }: disallowed on this kind of request`,
          });
        } else if (attributes.namespace !== namespace) {
          causes.push({
            field: "spec.resourceAttributes.namespace",
            message: `Invalid value: ${
              JSON.stringify(attributes.namespace)
            }: must match metadata.namespace`,
          });
        }
        metadata.namespace = namespace ?? "";
      }
      if (!attributes || causes.length) throw fail(causes);
      return answer(decide(attributes));
    }
    case "SelfSubjectRulesReview": {
      const { rules, errors } = ctx.authorizer.rulesFor(user, str(spec.namespace));
      const status: JsonObject = {
        resourceRules: rules.filter((r) => r.resources?.length).map((r) => ruleOf(r, true)),
        nonResourceRules: rules.filter((r) => r.nonResourceURLs?.length).map((r) =>
          ruleOf(r, false)
        ),
        incomplete: errors.length > 0,
      };
      if (errors.length) status.evaluationError = errors.join(", ");
      return answer(status);
    }
    case "SelfSubjectReview":
      return answer({ userInfo: userInfoOf(user) });
    case "TokenReview": {
      const token = str(spec.token);
      if (!token) {
        throw fail([{ field: "spec.token", message: "Required value: token must not be empty" }]);
      }
      const audiences = strings(spec.audiences);
      const found = ctx.authenticator.userOfToken(
        token,
        audiences.length ? audiences : undefined,
      );
      if (!found) return answer({ user: {}, error: "invalid bearer token" });
      return answer({
        authenticated: true,
        user: userInfoOf(found),
        ...(audiences.length ? { audiences } : {}),
      });
    }
  }
  throw badRequest(`${type.kind} is not a review the fake cluster answers`);
}
