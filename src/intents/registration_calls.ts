/**
 * One call of a registration function, taken apart: the selector arguments, the options and
 * the function; the selector; the handler's id; the retry and filter parts of its record. Shared
 * by the top-level registrations (`registration.ts`, `child_registration.ts`) and the
 * sub-handlers' (`subhandlers.ts`).
 *
 * @module
 */
import { isMapping } from "../structs/dicts.ts";
import {
  Selector,
  SelectorError,
  type SelectorKeywords,
  TypedResource,
} from "../structs/resource_selectors.ts";
import type { HandlerFilters } from "./filters.ts";
import type { HandlerFn, RetryPolicy } from "./handlers.ts";
import { composeId, functionName, generatedBase } from "./ids.ts";
import { type NormalizedOptions, show } from "./option_normalizing.ts";
import { type Registrar, RegistrationError } from "./handler_options.ts";
import { nextGeneratedId, type OperatorRegistry, warnOfRegistration } from "./registry.ts";

/** A registration call taken apart. */
export interface ParsedCall {
  /** The arguments before the options: the resource selector's. */
  readonly selectorArgs: unknown[];
  /** The options (an empty object if none were given). */
  readonly options: Record<string, unknown>;
  /** The handler function. */
  readonly fn: HandlerFn;
  /** Throw a {@link RegistrationError} naming the call and the handler. */
  readonly fail: (problem: string) => never;
}

/** The arguments, as a message shows them. */
export function describeArgs(args: readonly unknown[]): string {
  return args.map((a) =>
    typeof a === "function"
      ? (a.name || "predicate")
      : a instanceof TypedResource
      ? String(a)
      : show(a)
  ).join(", ");
}

/** Split `(...selector, options?, fn)` and make a `fail` that names the handler. */
export function parseCall(registrar: Registrar, args: readonly unknown[]): ParsedCall {
  const fn = args[args.length - 1];
  let rest = args.slice(0, -1);
  const last = rest[rest.length - 1];
  const hasOptions = rest.length > 0 && isMapping(last) && !(last instanceof TypedResource);
  const options = (hasOptions ? rest.pop() : {}) as Record<string, unknown>;
  // A typed resource stands for its names; its type matters to the compiler only.
  if (rest.length === 1 && rest[0] instanceof TypedResource) rest = [...rest[0].args];
  const where = `kopf.${registrar}(${describeArgs(rest)})`;
  const fail = (problem: string): never => {
    const name = typeof options.id === "string"
      ? options.id
      : typeof fn === "function"
      ? functionName(fn as HandlerFn) ?? "(anonymous)"
      : "";
    throw new RegistrationError(`${where}${name ? ` handler ${name}` : ""}: ${problem}.`);
  };
  if (typeof fn !== "function") {
    fail(
      `the handler function must be the last argument, got ${
        args.length === 0 ? "nothing" : show(fn)
      }`,
    );
  }
  return { selectorArgs: rest, options, fn: fn as HandlerFn, fail };
}

/**
 * The selector of a call's resource arguments (and keyword options); a bad one fails the
 * call with the selector's problem, after `what` (e.g. `the parent resource: `) if given.
 */
export function selectorOf(
  call: ParsedCall,
  args: readonly unknown[],
  keywords: SelectorKeywords = {},
  what = "",
): Selector {
  try {
    return Selector.parse(args, keywords);
  } catch (e) {
    if (e instanceof SelectorError) call.fail(`${what}${e.message.replace(/\.$/, "")}`);
    throw e;
  }
}

/** The filter fields of a handler record, from validated options. */
export function filtersOf(norm: NormalizedOptions): HandlerFilters {
  return {
    labels: norm.labels,
    annotations: norm.annotations,
    field: norm.field,
    value: norm.value,
    old: norm.old,
    new: norm.new,
    when: norm.when,
    fieldNeedsChange: norm.fieldNeedsChange,
    hasCallbacks: norm.hasCallbacks,
    hasFilters: norm.hasFilters,
  };
}

/** The retry policy of a handler record, from validated options. */
export function retryOf(norm: NormalizedOptions): RetryPolicy {
  return {
    errors: norm.errors,
    timeout: norm.timeout,
    retries: norm.retries,
    backoff: norm.backoff,
  };
}

/** The id of a new handler: explicit, the function's name, or generated (with a warning). */
export function handlerId(
  call: ParsedCall,
  norm: NormalizedOptions,
  registry: OperatorRegistry,
  registrar: Registrar,
  target: string,
  withField: boolean,
  parent?: string,
): string {
  let base = norm.id ?? functionName(call.fn);
  if (base === undefined) {
    base = nextGeneratedId(registry, generatedBase(registrar, target));
    warnOfRegistration(
      registry,
      `kopf.${registrar}(${target}): the handler function has no name, so its id is "${base}"; ` +
        `give it an explicit id (option "id") so that its progress survives code changes.`,
    );
  }
  return composeId(base, { field: withField ? norm.field : undefined, parent });
}
