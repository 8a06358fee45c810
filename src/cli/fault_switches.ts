/**
 * The `--faults` switches of `kopf simulate`: which of the simulation's faults happen, and
 * how often -- `crashes=off,conflicts=2`, `none,latency` (only latency), `--no-faults`. The
 * names are those of `SimulationFaults`, in camelCase or kebab-case (`watch-timeouts`).
 *
 * @module
 */
import { InvalidArgumentError } from "@commander-js/extra-typings";
import {
  FAULT_NAMES,
  faultWeights,
  type SimulationFaults,
} from "../testing/simulation/simulation_faults.ts";

type FaultName = keyof SimulationFaults;

/** The `--faults` value, checked: its text (for a replay command) and its switches in order. */
export interface FaultSwitches {
  /** The value as given, for the replay command. */
  readonly text: string;
  /** `none`/`all` (every fault off/on), or one fault's weight (0: off), in the order given. */
  readonly items: readonly (readonly [FaultName | "none" | "all", number])[];
}

const KEBAB = new Map(FAULT_NAMES.map((name) => [kebabCase(name), name]));

function kebabCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
}

/** Parse `--faults`: a comma-separated list of `name`, `name=on|off|<weight>`, `none`, `all`. */
export function parseFaultSwitches(value: string): FaultSwitches {
  const items: [FaultName | "none" | "all", number][] = [];
  for (const item of value.split(",").map((part) => part.trim())) {
    if (item === "none" || item === "all") {
      items.push([item, item === "all" ? 1 : 0]);
      continue;
    }
    const [key, setting = "on", extra] = item.split("=").map((part) => part.trim());
    const name = (FAULT_NAMES as readonly string[]).includes(key)
      ? key as FaultName
      : KEBAB.get(key);
    if (name === undefined) {
      throw new InvalidArgumentError(
        `unknown fault ${JSON.stringify(key)}: use none, all, or ${
          FAULT_NAMES.map(kebabCase).join(", ")
        }, each optionally =on, =off or =<weight>.`,
      );
    }
    const weight = extra !== undefined ? NaN : weightOf(setting);
    if (!(weight >= 0) || !Number.isFinite(weight)) {
      throw new InvalidArgumentError(
        `${key} needs on, off or a weight of 0 or more, not ${JSON.stringify(item)}.`,
      );
    }
    items.push([name, weight]);
  }
  return { text: value, items };
}

/** Parse `--suppress`: a comma-separated list of fault names. */
export function parseFaultNames(value: string): FaultName[] {
  return value.split(",").map((part) => part.trim()).map((key) => {
    const name = (FAULT_NAMES as readonly string[]).includes(key)
      ? key as FaultName
      : KEBAB.get(key);
    if (name === undefined) {
      throw new InvalidArgumentError(
        `unknown fault ${JSON.stringify(key)}: use ${FAULT_NAMES.map(kebabCase).join(", ")}.`,
      );
    }
    return name;
  });
}

/** Fault names as the command line writes them: `watch-timeouts,crashes`. */
export function faultNamesText(names: readonly FaultName[]): string {
  return names.map(kebabCase).join(",");
}

function weightOf(setting: string): number {
  if (setting === "on" || setting === "true") return 1;
  if (setting === "off" || setting === "false") return 0;
  return setting === "" ? NaN : Number(setting);
}

/**
 * The faults of a run: the scenario module's (`base`), then the switches over them in
 * order; `false` (from `--no-faults`) for none at all. Without switches, `base` as it is.
 */
export function switchedFaults(
  base: SimulationFaults | false | undefined,
  switches: FaultSwitches | false | undefined,
): SimulationFaults | false | undefined {
  if (switches === false) return false;
  if (switches === undefined) return base;
  const weights: Record<FaultName, number> = { ...faultWeights(base) };
  for (const [name, weight] of switches.items) {
    if (name === "none" || name === "all") {
      for (const each of FAULT_NAMES) weights[each] = weight;
    } else {
      weights[name] = weight;
    }
  }
  return weights;
}
