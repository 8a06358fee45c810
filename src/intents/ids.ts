/**
 * Handler ids: explicit, from the function's name, or generated deterministically.
 *
 * @module
 */
import type { FieldPath } from "../structs/dicts.ts";

/** The function's own name, if it has a usable one (`bound f` gives `f`). */
export function functionName(fn: (...args: never[]) => unknown): string | undefined {
  const name = fn.name.replace(/^(?:bound )+/, "");
  return name === "" || name === "anonymous" ? undefined : name;
}

/** A base for generated ids: only characters that survive in annotation keys. */
export function generatedBase(registrar: string, target: string): string {
  const raw = `${registrar.replace(/^on\./, "")}-${target}`;
  return raw.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^-+|-+$/g, "");
}

/** The full id: the parent's id as a prefix, the field as a suffix. */
export function composeId(
  base: string,
  options: { field?: FieldPath; parent?: string },
): string {
  const withField = options.field === undefined ? base : `${base}/${options.field.join(".")}`;
  return options.parent === undefined ? withField : `${options.parent}/${withField}`;
}
