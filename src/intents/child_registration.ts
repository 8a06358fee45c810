/**
 * `kopf.on.child(parent, child, options?, fn)`: a handler of the parent resource that runs
 * for a parent when one of its children -- objects of the child resource with an owner
 * reference to it -- is created, changed or deleted.
 *
 * @module
 */
import {
  type PartOf,
  type ResourceName,
  type Selector,
  TypedResource,
} from "../structs/resource_selectors.ts";
import type { Body, ReadonlyJsonObject } from "../structs/views.ts";
import type { BuiltinObjects } from "../structs/builtin_objects.ts";
import type { HandlerFilters, MetaFilter, WhenCallback } from "./filters.ts";
import type { ChildHandler } from "./handlers.ts";
import type { ChildOptions } from "./handler_options.ts";
import { normalizeOptions } from "./option_normalizing.ts";
import type { ChildFilterKwargs, ChildKwargs } from "./kwargs.ts";
import { addHandler, getDefaultRegistry } from "./registry.ts";
import { filtersOf, handlerId, parseCall, retryOf, selectorOf } from "./registration_calls.ts";

/**
 * The type of the children of a child resource: a typed resource's `T`, a built-in's shape
 * for a plural that {@link BuiltinObjects} names, else the generic body.
 */
export type ChildOf<CR> = [CR] extends [keyof BuiltinObjects]
  ? BuiltinObjects[CR & keyof BuiltinObjects]
  : [CR] extends [TypedResource<infer C>] ? (unknown extends C ? Body : C)
  : Body;

/**
 * The registration of child handlers: the parent resource, the child resource (a name such as
 * `"configmaps"` or `"deployments.apps"`, or typed), options (optional), the function.
 * `S`/`St` type the parent's `spec`/`status`; `I` declares indices.
 */
export interface ChildRegistrar {
  /** Register `fn` for children of a typed parent resource (`kopf.resource<T>(...)`). */
  <
    T,
    I = unknown,
    CR extends ResourceName | TypedResource<unknown> = ResourceName | TypedResource<unknown>,
  >(
    parent: TypedResource<T>,
    child: CR,
    fn: (kwargs: ChildKwargs<PartOf<T, "spec">, PartOf<T, "status">, ChildOf<CR>> & I) => unknown,
  ): (kwargs: ChildKwargs<PartOf<T, "spec">, PartOf<T, "status">, ChildOf<CR>> & I) => unknown;
  /** Register `fn` for children of a typed parent resource, with options. */
  <
    T,
    I = unknown,
    CR extends ResourceName | TypedResource<unknown> = ResourceName | TypedResource<unknown>,
  >(
    parent: TypedResource<T>,
    child: CR,
    options: ChildOptions<ChildKwargs<PartOf<T, "spec">, PartOf<T, "status">, ChildOf<CR>> & I>,
    fn: (kwargs: ChildKwargs<PartOf<T, "spec">, PartOf<T, "status">, ChildOf<CR>> & I) => unknown,
  ): (kwargs: ChildKwargs<PartOf<T, "spec">, PartOf<T, "status">, ChildOf<CR>> & I) => unknown;
  /** Register `fn` for children of the parents with this resource name. */
  <
    S = ReadonlyJsonObject,
    St = ReadonlyJsonObject,
    I = unknown,
    CR extends ResourceName | TypedResource<unknown> = ResourceName | TypedResource<unknown>,
  >(
    parent: ResourceName,
    child: CR,
    fn: (kwargs: ChildKwargs<S, St, ChildOf<CR>> & I) => unknown,
  ): (kwargs: ChildKwargs<S, St, ChildOf<CR>> & I) => unknown;
  /** Register `fn` for children of the parents with this resource name, with options. */
  <
    S = ReadonlyJsonObject,
    St = ReadonlyJsonObject,
    I = unknown,
    CR extends ResourceName | TypedResource<unknown> = ResourceName | TypedResource<unknown>,
  >(
    parent: ResourceName,
    child: CR,
    options: ChildOptions<ChildKwargs<S, St, ChildOf<CR>> & I>,
    fn: (kwargs: ChildKwargs<S, St, ChildOf<CR>> & I) => unknown,
  ): (kwargs: ChildKwargs<S, St, ChildOf<CR>> & I) => unknown;
}

/** The registration of `on.child`; see {@link ChildRegistrar}. */
export const child: ChildRegistrar = ((...args: unknown[]): unknown => {
  const call = parseCall("on.child", args);
  if (call.selectorArgs.length !== 2) {
    call.fail(
      "name the parent and the child resources, then options (optional), then the function, " +
        'e.g. kopf.on.child("kopfexamples", "configmaps", fn)',
    );
  }
  const norm = normalizeOptions("on.child", call.options, call.fail);
  const resourceSelector = (arg: unknown, which: string): Selector =>
    selectorOf(
      call,
      arg instanceof TypedResource ? arg.args : [arg],
      {},
      `the ${which} resource: `,
    );
  const parent = resourceSelector(call.selectorArgs[0], "parent");
  const childSelector = resourceSelector(call.selectorArgs[1], "child");
  const registry = norm.registry ?? getDefaultRegistry();
  const id = handlerId(call, norm, registry, "on.child", parent.toString(), false);
  const childLabels = norm.extra.childLabels as MetaFilter<unknown> | undefined;
  const childWhen = norm.extra.childWhen as WhenCallback<ChildFilterKwargs> | undefined;
  const childFilters: HandlerFilters = {
    labels: childLabels,
    annotations: undefined,
    field: undefined,
    value: undefined,
    old: undefined,
    new: undefined,
    when: childWhen as WhenCallback<unknown> | undefined,
    fieldNeedsChange: false,
    hasCallbacks: childWhen !== undefined ||
      Object.values(childLabels ?? {}).some((v) => typeof v === "function"),
    hasFilters: childLabels !== undefined || childWhen !== undefined,
  };
  const record: ChildHandler = {
    kind: "child",
    fn: call.fn,
    id,
    param: norm.param,
    registrar: "kopf.on.child",
    rbac: norm.rbac,
    metadataOnly: norm.extra.metadataOnly === true,
    ...filtersOf(norm),
    ...retryOf(norm),
    selector: parent,
    childSelector,
    childFilters,
    anyOwner: norm.extra.anyOwner === true,
    unlabelled: norm.extra.unlabelled === true,
  };
  addHandler(registry, record);
  return call.fn;
}) as ChildRegistrar;
