/**
 * The review APIs, which store nothing and answer a question: may this user do that
 * (`SelfSubjectAccessReview`, `SubjectAccessReview`, `LocalSubjectAccessReview` -- what
 * `kubectl auth can-i` asks), what may I do here (`SelfSubjectRulesReview` -- `kubectl
 * auth can-i --list`), who am I (`SelfSubjectReview` -- `kubectl auth whoami`), and whose
 * is this token (`TokenReview`).
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../../structs/bodies.ts";
import type { Authenticator } from "./authentication.ts";
import type { ResourceType } from "../../catalog/resource_types.ts";
import { type ApiError, badRequest, type Cause, invalid } from "./errors.ts";
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

/** One review being answered: what was posted, by whom, and how to answer or refuse it. */
interface Review {
  readonly type: ResourceType;
  /** The namespace it was posted to, for the namespaced one. */
  readonly namespace: string | undefined;
  readonly spec: JsonObject;
  readonly metadata: JsonObject;
  readonly user: UserInfo;
  readonly ctx: ReviewContext;
  /** The 422 of an invalid review. */
  fail(causes: Cause[]): ApiError;
  /** The review given back with this status. */
  answer(status: JsonObject): JsonObject;
}

/** The status of an access review: the authorizer's decision. */
function decide(review: Review, attributes: Attributes): JsonObject {
  const decision = review.ctx.authorizer.authorize(attributes);
  const status: JsonObject = { allowed: decision.allowed };
  if (decision.reason) status.reason = decision.reason;
  return status;
}

/** `SelfSubjectAccessReview`: may I do this? */
function selfSubjectAccess(review: Review): JsonObject {
  const { attributes, causes } = attributesOf(review.spec, review.user);
  if (!attributes) throw review.fail(causes);
  return review.answer(decide(review, attributes));
}

/** The subject an access review asks about. */
function subjectOf(spec: JsonObject): UserInfo {
  return {
    username: str(spec.user),
    groups: strings(spec.groups),
    ...(str(spec.uid) ? { uid: str(spec.uid) } : {}),
    ...(isObject(spec.extra)
      ? {
        extra: Object.fromEntries(Object.entries(spec.extra).map(([k, v]) => [k, strings(v)])),
      }
      : {}),
  };
}

/** The causes of a local review's being invalid: resources in its own namespace only. */
function localCauses(review: Review, attributes: Attributes): Cause[] {
  const { spec, namespace } = review;
  if (!attributes.resourceRequest) {
    return [{
      field: "spec.nonResourceAttributes",
      message: `Invalid value: ${
        JSON.stringify(spec.nonResourceAttributes)
      }: disallowed on this kind of request`,
    }];
  }
  if (attributes.namespace !== namespace) {
    return [{
      field: "spec.resourceAttributes.namespace",
      message: `Invalid value: ${
        JSON.stringify(attributes.namespace)
      }: must match metadata.namespace`,
    }];
  }
  return [];
}

/** `SubjectAccessReview` and `LocalSubjectAccessReview`: may they do this? */
function subjectAccess(review: Review): JsonObject {
  const { spec, namespace } = review;
  const local = review.type.kind === "LocalSubjectAccessReview";
  const subject = subjectOf(spec);
  const asked = attributesOf(spec, subject);
  const causes = asked.causes;
  let attributes = asked.attributes;
  // A local review's empty namespace means the one it was posted to.
  if (local && attributes?.resourceRequest && !attributes.namespace) {
    attributes = { ...attributes, namespace: namespace ?? "" };
  }
  if (!subject.username && !subject.groups.length) {
    causes.push({
      field: "spec.user",
      message: 'Invalid value: "": at least one of user or group must be specified',
    });
  }
  if (local && attributes) {
    causes.push(...localCauses(review, attributes));
    review.metadata.namespace = namespace ?? "";
  }
  if (!attributes || causes.length) throw review.fail(causes);
  return review.answer(decide(review, attributes));
}

/** `SelfSubjectRulesReview`: what may I do in this namespace? */
function selfSubjectRules(review: Review): JsonObject {
  const { rules, errors } = review.ctx.authorizer.rulesFor(review.user, str(review.spec.namespace));
  const status: JsonObject = {
    resourceRules: rules.filter((r) => r.resources?.length).map((r) => ruleOf(r, true)),
    nonResourceRules: rules.filter((r) => r.nonResourceURLs?.length).map((r) => ruleOf(r, false)),
    incomplete: errors.length > 0,
  };
  if (errors.length) status.evaluationError = errors.join(", ");
  return review.answer(status);
}

/** `TokenReview`: whose is this token? */
function tokenReview(review: Review): JsonObject {
  const { spec } = review;
  const token = str(spec.token);
  if (!token) {
    throw review.fail([{
      field: "spec.token",
      message: "Required value: token must not be empty",
    }]);
  }
  const audiences = strings(spec.audiences);
  const found = review.ctx.authenticator.userOfToken(
    token,
    audiences.length ? audiences : undefined,
  );
  if (!found) return review.answer({ user: {}, error: "invalid bearer token" });
  return review.answer({
    authenticated: true,
    user: userInfoOf(found),
    ...(audiences.length ? { audiences } : {}),
  });
}

/** How each review is answered, by kind. */
const ANSWERS: Readonly<Record<string, (review: Review) => JsonObject>> = {
  SelfSubjectAccessReview: selfSubjectAccess,
  SubjectAccessReview: subjectAccess,
  LocalSubjectAccessReview: subjectAccess,
  SelfSubjectRulesReview: selfSubjectRules,
  SelfSubjectReview: (review) => review.answer({ userInfo: userInfoOf(review.user) }),
  TokenReview: tokenReview,
};

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
  const answerer = ANSWERS[type.kind];
  if (!answerer) throw badRequest(`${type.kind} is not a review the fake cluster answers`);
  const spec = isObject(body.spec) ? body.spec : {};
  const metadata = isObject(body.metadata) ? { ...body.metadata } : {};
  const kind = `${type.kind}.${type.group}`;
  return answerer({
    type,
    namespace,
    spec,
    metadata,
    user,
    ctx,
    fail: (causes) =>
      invalid(kind, { name: str(metadata.name), group: type.group, plural: type.plural }, causes),
    answer: (status) => ({
      kind: type.kind,
      apiVersion: `${type.group}/v1`,
      metadata: { creationTimestamp: null, ...metadata },
      spec,
      status,
    }),
  });
}
