/**
 * The shared counter of the counter operators: a ConfigMap whose `count` is the number of
 * objects counted, each counted object also named by a key of its own, so that counting
 * one object again (its handler run again) leaves the count as it is.
 */
import type { RawBody } from "../../../mod.ts";

/** The counter ConfigMap. */
export const COUNTER = { name: "counter", namespace: "default" } as const;

/** The labels of the ConfigMaps that are counted. */
export const COUNTED_LABELS = { counted: "yes" } as const;

/** The counter's data with the object counted (as it was if it was counted already). */
export function counted(counter: RawBody, name: string): Record<string, string> {
  const data = { ...(counter.data as Record<string, string> | undefined) };
  const key = `object.${name}`;
  if (data[key] === undefined) {
    data[key] = "counted";
    data.count = String(Number(data.count ?? "0") + 1);
  }
  return data;
}
