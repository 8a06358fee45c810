/**
 * RBAC rules as operators declare them for their handlers' own API calls: one string per
 * resource, `RESOURCE:VERB[,VERB...]`, the resource named as kubectl names it -- `pods`,
 * `deployments.apps`, `pods/log` -- e.g. `pods:create,delete`. `kopf manifests` turns
 * them into the rules of the operator's Role or ClusterRole.
 *
 * @module
 */

/** A declared rule, parsed. */
export interface DeclaredRule {
  /** The API group; `""` for the core group. */
  readonly group: string;
  /** The resource's plural name. */
  readonly plural: string;
  /** The subresource, e.g. `log` of `pods/log`. */
  readonly subresource?: string;
  /** The verbs, e.g. `["create", "delete"]`; `*` for all. */
  readonly verbs: readonly string[];
}

const RULE =
  /^([a-z0-9]([a-z0-9-]*[a-z0-9])?)((?:\.[a-z0-9-]+)*)(?:\/([a-z]+))?:([a-z*]+(?:,[a-z*]+)*)$/;

/** An example of the syntax, for messages. */
export const RULE_EXAMPLE = "pods:create,delete or deployments.apps:get,patch";

/** Parse a declared rule; `undefined` if it is not `RESOURCE:VERBS`. */
export function parseDeclaredRule(text: string): DeclaredRule | undefined {
  const match = RULE.exec(text.trim());
  if (match === null) return undefined;
  const [, plural, , dotted, subresource, verbs] = match;
  return {
    group: dotted.slice(1),
    plural,
    ...(subresource ? { subresource } : {}),
    verbs: verbs.split(","),
  };
}

/**
 * The rule that a 403 of kube-apiserver asks for, as `RESOURCE:VERB`, from its message:
 * `User "..." cannot VERB resource "PLURAL[/SUB]" in API group "GROUP" ...` (the wording of
 * apiserver's endpoints/handlers/responsewriters/errors.go, forbiddenMessage); `undefined`
 * for another message (e.g. a non-resource path).
 */
export function ruleOfForbidden(message: string): string | undefined {
  const match = /cannot (\w+) resource "([a-z0-9.-]+)(?:\/([a-z]+))?" in API group "([^"]*)"/
    .exec(message);
  if (match === null) return undefined;
  const [, verb, plural, subresource, group] = match;
  return `${plural}${group ? `.${group}` : ""}${subresource ? `/${subresource}` : ""}:${verb}`;
}
