/**
 * The instructions of a controller's run by function, as `deno task bench instructions` shows
 * them with `KOPF_BENCH_INSTRUCTIONS_FUNCTIONS`: read from a callgrind dump, V8's perf map of
 * the process and the names of the `deno` executable's native entries
 * (`callgrind_functions.ts`), and printed as tables.
 *
 * @module
 */
import {
  type EntryCost,
  executableEntryNames,
  inclusiveByNativeEntry,
  loadAddresses,
  ownByFunction,
  parseDump,
  perfMap,
} from "./callgrind_functions.ts";
import { markdownTable } from "./stats.ts";

/** A run's instructions per object, by function. */
export interface InstructionProfile {
  /** By function (generated code) or object file (native code), what each executed itself. */
  own: Map<string, number>;
  /** By V8 runtime function or C++ builtin, all the work under it; undefined if not named. */
  native: Map<string, EntryCost> | undefined;
}

let names: Promise<Map<number, string> | undefined> | undefined;

/** The names of the `deno` executable's native entries, read once; undefined without readelf. */
function denoEntryNames(): Promise<Map<number, string> | undefined> {
  return names ??= executableEntryNames(Deno.execPath()).catch(() => undefined);
}

/**
 * The profile of a run: its dump, written with `BY_ADDRESS_ARGS`, and the process `pid`, still
 * running (its perf map, which is then removed, and its mappings are read), per object of
 * `size`.
 */
export async function instructionProfile(
  dump: string,
  pid: number,
  size: number,
): Promise<InstructionProfile> {
  const mapFile = `/tmp/perf-${pid}.map`;
  try {
    const { own, calls } = parseDump(dump);
    const byFunction = ownByFunction(
      own,
      perfMap(await Deno.readTextFile(mapFile)),
      loadAddresses(await Deno.readTextFile(`/proc/${pid}/maps`)),
    );
    for (const [name, cost] of byFunction) byFunction.set(name, cost / size);
    const entries = await denoEntryNames();
    const native = entries && inclusiveByNativeEntry(calls, Deno.execPath(), entries);
    for (const entry of native?.values() ?? []) {
      entry.cost /= size;
      entry.calls /= size;
    }
    return { own: byFunction, native };
  } finally {
    await Deno.remove(mapFile).catch(() => {});
  }
}

/** A profile's instructions per object in all: what its functions executed themselves. */
function totalOf(profile: InstructionProfile): number {
  return [...profile.own.values()].reduce((sum, cost) => sum + cost, 0);
}

/** The share of `part` in `whole`, as a percentage. */
const share = (part: number, whole: number) => `${(100 * part / whole).toFixed(1)}%`;

/** The `n` keys of the map with the largest values, by `value`. */
function top<V>(map: ReadonlyMap<string, V>, n: number, value: (v: V) => number): [string, V][] {
  return [...map].sort((a, b) => value(b[1]) - value(a[1])).slice(0, n);
}

/** What moved most, by absolute difference, between two maps of costs. */
function moved<V>(
  now: ReadonlyMap<string, V>,
  before: ReadonlyMap<string, V>,
  n: number,
  value: (v: V | undefined) => number,
): [string, number][] {
  const keys = new Set([...now.keys(), ...before.keys()]);
  return [...keys].map((key) =>
    [key, value(now.get(key)) - value(before.get(key))] as [
      string,
      number,
    ]
  ).sort((a, b) => Math.abs(b[1]) - Math.abs(a[1])).slice(0, n);
}

const signed = (n: number) => `${n > 0 ? "+" : ""}${n.toFixed(0)}`;

/**
 * V8's entries that compile or tier code: optimizing (Maglev, TurboFan, on-stack replacement),
 * the first compilation of a lazily compiled function, baseline code, the budget interrupts
 * (feedback vectors, tiering decisions) and deoptimization. None of them runs JavaScript, so
 * none is under another (callgrind's callers, two deep, showed none): their inclusive costs
 * add up.
 */
const COMPILING =
  /^(Optimize|StartMaglev|StartTurbofan|Compile|InstallBaselineCode|BytecodeBudgetInterrupt|NotifyDeoptimized)/;

/** Whether a native entry compiles or tiers code (see {@link COMPILING}). */
export function isCompiling(entry: string): boolean {
  return COMPILING.test(entry);
}

/** A run's instructions per object in all, and those under V8's compiling entries. */
export interface CompilingShare {
  total: number;
  compiling: number;
}

/** The instructions per object of a profile in all and under its compiling entries. */
export function compilingShare(profile: InstructionProfile): CompilingShare | undefined {
  if (profile.native === undefined) return undefined;
  const total = totalOf(profile);
  let compiling = 0;
  for (const [name, entry] of profile.native) if (isCompiling(name)) compiling += entry.cost;
  return { total, compiling };
}

/**
 * The table of compilation: per controller, the instructions under V8's compiling entries and
 * their share; for `kopf`, also how much of what it executes more than `against` they are.
 */
export function compilingTable(
  profiles: ReadonlyMap<string, InstructionProfile>,
  against: string,
): string | undefined {
  const shares = new Map<string, CompilingShare>();
  for (const [key, profile] of profiles) {
    const counted = compilingShare(profile);
    if (counted !== undefined) shares.set(key, counted);
  }
  if (shares.size === 0) return undefined;
  const rows = [...shares].map(([key, { total, compiling }]) => [
    key,
    compiling.toFixed(0),
    share(compiling, total),
  ]);
  const kopf = shares.get("kopf");
  const before = shares.get(against);
  let more = "";
  if (kopf !== undefined && before !== undefined && kopf.total > before.total) {
    const excess = kopf.total - before.total;
    const compiled = kopf.compiling - before.compiling;
    more = `\n\n\`kopf\` executes ${excess.toFixed(0)} instructions per object more than ` +
      `\`${against}\`; ${signed(compiled)} of them (${share(compiled, excess)}) compile or tier.`;
  }
  return `Compiling and tiering: the instructions under V8's entries that optimize, compile ` +
    `lazily or to baseline code, tier or deoptimize, per object\n\n${
      markdownTable(["Controller", "Instructions per object", "Share"], rows)
    }${more}`;
}

/**
 * The tables of the profiles: per controller, the `n` functions that executed most themselves
 * and the `n` native entries under which most was executed; then what moved most for `kopf`
 * against `against` (the baseline, or the floor).
 */
export function profileTables(
  profiles: ReadonlyMap<string, InstructionProfile>,
  n: number,
  against: string,
): string {
  const tables: string[] = [];
  for (const [key, profile] of profiles) {
    const total = totalOf(profile);
    tables.push(
      `\`${key}\`: the functions by the instructions they executed themselves, per object ` +
        `(last run; ${total.toFixed(0)} in all)\n\n${
          markdownTable(
            ["Function", "Own instructions per object", "Share"],
            top(profile.own, n, (cost) => cost).map((
              [name, cost],
            ) => [name, cost.toFixed(0), share(cost, total)]),
          )
        }`,
    );
    if (profile.native === undefined) {
      tables.push(`\`${key}\`: native entries not named (binutils' readelf is needed).`);
      continue;
    }
    tables.push(
      `\`${key}\`: V8's runtime functions and C++ builtins by all the instructions under them, ` +
        `per object\n\n${
          markdownTable(
            ["Entry", "Instructions per object", "Share", "Calls per object"],
            top(profile.native, n, (entry) => entry.cost).map(([name, entry]) => [
              name,
              entry.cost.toFixed(0),
              share(entry.cost, total),
              entry.calls.toFixed(2),
            ]),
          )
        }`,
    );
  }
  const kopf = profiles.get("kopf");
  const before = profiles.get(against);
  if (kopf !== undefined && before !== undefined) {
    tables.push(
      `The functions that moved most, \`kopf\` against \`${against}\` (own instructions per ` +
        `object)\n\n${
          markdownTable(
            ["Function", `kopf − ${against}`],
            moved(kopf.own, before.own, n, (cost) => cost ?? 0).map((
              [name, delta],
            ) => [name, signed(delta)]),
          )
        }`,
    );
    if (kopf.native !== undefined && before.native !== undefined) {
      tables.push(
        `The native entries that moved most, \`kopf\` against \`${against}\` (instructions ` +
          `per object under them)\n\n${
            markdownTable(
              ["Entry", `kopf − ${against}`],
              moved(kopf.native, before.native, n, (entry) => entry?.cost ?? 0).map((
                [name, delta],
              ) => [name, signed(delta)]),
            )
          }`,
      );
    }
  }
  const compiling = compilingTable(profiles, against);
  if (compiling !== undefined) tables.push(compiling);
  return tables.length === 0 ? "" : `\n\n${tables.join("\n\n")}`;
}
