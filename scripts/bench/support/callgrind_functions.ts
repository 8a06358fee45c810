/**
 * Where the instructions that callgrind counted went, by function:
 *
 * - **Generated code by JavaScript function.** Callgrind counts the instructions at each
 *   address (`--dump-instr=yes`), but V8's generated code has no symbols it can read, so its
 *   costs are put on the pieces of code of the perf map that V8 writes with
 *   `--perf-basic-prof` (`/tmp/perf-<pid>.map`: one `start size name` line per piece of code
 *   it generates, its builtins and bytecode handlers included). Own costs only: callgrind
 *   follows calls by their `call` and `ret` instructions, which V8's frames do not pair, so
 *   the inclusive costs of generated code are not to be trusted. What lies in no piece of the
 *   map keeps the name of its object file (`[deno]`, `[libc.so.6]`).
 * - **Deno's native code by V8 runtime function and C++ builtin, inclusive.** The `deno`
 *   executable is stripped, but V8's tables of its runtime functions and C++ builtins hold
 *   each one's name beside its entry address, as two pointers the loader relocates: its
 *   `.rela.dyn` section (read with binutils' `readelf`) names the entries. Native code calls
 *   native code with paired `call` and `ret`, so a call into such an entry carries what all
 *   the work under it cost: the JSON parser under `JsonParse`, a synchronous compilation
 *   under `OptimizeMaglevEager`, the collector's under an allocation.
 *
 * @module
 */

/** The `valgrind` arguments, beside `callgrindArgs()`, for costs by address. */
export const BY_ADDRESS_ARGS: readonly string[] = [
  "--dump-instr=yes",
  "--dump-line=no",
  "--compress-pos=no",
  "--compress-strings=no",
];

/** The V8 flags for a perf map with the interpreted functions told apart. */
export const PERF_MAP_V8_FLAGS: readonly string[] = [
  "--perf-basic-prof",
  "--interpreted-frames-native-stack",
];

/** The costs of a dump: object file → address in it → instructions executed there. */
export type AddressCosts = Map<string, Map<number, number>>;

/** A call that a dump counted: its target (an object file and an address), and its cost. */
export interface CallCost {
  object: string;
  target: number;
  /** The instructions of the call, all it called included. */
  cost: number;
  count: number;
}

/** What a dump holds: the own costs by address, and the calls. */
export interface DumpCosts {
  own: AddressCosts;
  calls: CallCost[];
}

/**
 * The costs of a callgrind dump written with `BY_ADDRESS_ARGS`. Its addresses are relative to
 * their object file's load address. A `calls=<count> <target>` line (its target's object file
 * named by a `cob=` line before it, if not the caller's) is followed by the line of the call's
 * site with the call's inclusive cost, which is not the caller's own.
 */
export function parseDump(dump: string): DumpCosts {
  const own: AddressCosts = new Map();
  const calls: CallCost[] = [];
  let object = "???";
  let calledObject: string | undefined;
  let call: { object: string; target: number; count: number } | undefined;
  for (const line of dump.split("\n")) {
    if (line.startsWith("ob=")) {
      object = stripId(line.slice(3)) || object;
    } else if (line.startsWith("cob=")) {
      calledObject = stripId(line.slice(4));
    } else if (line.startsWith("calls=")) {
      const [count, target] = line.slice(6).trim().split(" ").map(Number);
      call = { object: calledObject ?? object, target, count };
      calledObject = undefined;
    } else if (/^(?:0x[0-9a-f]|\d)/.test(line)) {
      const [position, cost] = line.split(" ", 2).map(Number);
      if (call !== undefined) {
        if (Number.isFinite(cost)) calls.push({ ...call, cost });
        call = undefined;
        continue;
      }
      if (!Number.isFinite(position) || !Number.isFinite(cost)) continue;
      let byAddress = own.get(object);
      if (byAddress === undefined) own.set(object, byAddress = new Map());
      byAddress.set(position, (byAddress.get(position) ?? 0) + cost);
    }
  }
  return { own, calls };
}

/** A name as callgrind writes it, without the `(id)` of its compressed form. */
function stripId(name: string): string {
  return name.replace(/^\(\d+\)\s*/, "");
}

/** One piece of generated code of a perf map. */
export interface CodeRange {
  start: number;
  end: number;
  name: string;
}

/**
 * The pieces of a perf map, sorted by start. Where pieces overlap (code freed and its memory
 * reused), the one written later is kept.
 */
export function perfMap(text: string): CodeRange[] {
  const written: CodeRange[] = [];
  for (const line of text.split("\n")) {
    const match = /^([0-9a-fA-F]+) ([0-9a-fA-F]+) (.*)$/.exec(line);
    if (match === null) continue;
    const start = parseInt(match[1], 16);
    written.push({ start, end: start + parseInt(match[2], 16), name: match[3] });
  }
  // The order of writing decides overlaps. The kept pieces are disjoint and sorted, so a
  // piece can overlap only the last one kept.
  const order = new Map(written.map((range, index) => [range, index]));
  const sorted = [...written].sort((a, b) => a.start - b.start);
  const kept: CodeRange[] = [];
  for (const range of sorted) {
    const last = kept.at(-1);
    if (last !== undefined && last.end > range.start) {
      if (order.get(last)! > order.get(range)!) continue;
      kept.pop();
    }
    kept.push(range);
  }
  return kept;
}

/** The range that holds `address`, by binary search. */
function rangeOf(ranges: readonly CodeRange[], address: number): CodeRange | undefined {
  let low = 0;
  let high = ranges.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const range = ranges[middle];
    if (address < range.start) high = middle - 1;
    else if (address >= range.end) low = middle + 1;
    else return range;
  }
  return undefined;
}

/**
 * The load addresses of a process's object files, from its `/proc/<pid>/maps`: where the
 * mapping of each file's offset 0 begins. Callgrind's addresses are relative to these.
 */
export function loadAddresses(maps: string): Map<string, number> {
  const bases = new Map<string, number>();
  for (const line of maps.split("\n")) {
    const match = /^([0-9a-f]+)-[0-9a-f]+ \S+ 0+ \S+ \d+\s+(\/.*)$/.exec(line);
    if (match !== null && !bases.has(match[2])) bases.set(match[2], parseInt(match[1], 16));
  }
  return bases;
}

/**
 * A perf map's name of generated code without V8's tier marker (`JS:*`, `JS:~`, `JS:^`,
 * `JS:+`) and with a project's module paths from its root (`src/`, `scripts/`, `tests/`), so
 * that a function is one name in every tier and in every checkout of the project.
 */
export function functionName(name: string): string {
  return name.replace(/^JS:[*~^+]?/, "").replace(/file:\/\/\S*?\/((?:src|scripts|tests)\/)/, "$1");
}

/**
 * The instructions each function executed itself, by name: generated code and V8's builtins
 * by the perf map's names (see {@link functionName}); other code by its object file's base name,
 * in brackets: the runtime's C++ and Rust (`[deno]`), the C library.
 */
export function ownByFunction(
  costs: AddressCosts,
  ranges: readonly CodeRange[],
  bases: ReadonlyMap<string, number>,
): Map<string, number> {
  const byName = new Map<string, number>();
  for (const [object, byAddress] of costs) {
    const base = bases.get(object) ?? 0;
    const file = `[${object.split("/").pop()}]`;
    for (const [address, cost] of byAddress) {
      const range = rangeOf(ranges, address + base);
      const name = range === undefined ? file : functionName(range.name);
      byName.set(name, (byName.get(name) ?? 0) + cost);
    }
  }
  return byName;
}

/** A section of an ELF file: where it lies in memory, and where in the file. */
interface Section {
  start: number;
  end: number;
  offset: number;
}

/** The section `name` of a section table as `readelf -SW` prints it. */
function section(sections: string, name: string): Section | undefined {
  const match = new RegExp(
    `\\s${name.replace(".", "\\.")}\\s+\\S+\\s+([0-9a-f]+)\\s+([0-9a-f]+)\\s+([0-9a-f]+)`,
  ).exec(sections);
  if (match === null) return undefined;
  const start = parseInt(match[1], 16);
  return { start, end: start + parseInt(match[3], 16), offset: parseInt(match[2], 16) };
}

/**
 * The names of the entries of V8's runtime functions and C++ builtins in a stripped 64-bit
 * ELF executable, by entry address: where its relative relocations (`readelf -rW`) put, at
 * one place, the address of a name (an identifier in `.rodata`) and, 8 or 16 bytes on (the
 * layouts of V8's `Runtime::Function` and `Builtins` tables), an address in `.text`.
 * `binary` is the file's bytes; a name is read at its address's offset in the file.
 */
export function nativeEntryNames(
  binary: Uint8Array,
  relocations: string,
  sections: string,
): Map<number, string> {
  const names = new Map<number, string>();
  const rodata = section(sections, ".rodata");
  const text = section(sections, ".text");
  if (rodata === undefined || text === undefined) return names;
  const pointers = new Map<number, number>();
  for (const line of relocations.split("\n")) {
    const match = /^([0-9a-f]+)\s+[0-9a-f]+\s+R_[A-Z0-9_]+_RELATIVE\s+([0-9a-f]+)/.exec(line);
    if (match !== null) pointers.set(parseInt(match[1], 16), parseInt(match[2], 16));
  }
  const within = (address: number, { start, end }: Section) => address >= start && address < end;
  for (const [place, pointee] of pointers) {
    if (!within(pointee, rodata)) continue;
    const name = identifierAt(binary, pointee - rodata.start + rodata.offset);
    if (name === undefined) continue;
    for (const offset of [8, 16]) {
      const entry = pointers.get(place + offset);
      if (entry !== undefined && within(entry, text)) {
        if (!names.has(entry)) names.set(entry, name);
        break;
      }
    }
  }
  return names;
}

/** The NUL-terminated identifier (3 to 80 characters) at `at`, if there is one. */
function identifierAt(bytes: Uint8Array, at: number): string | undefined {
  let end = at;
  while (end < bytes.length && end - at <= 80) {
    const c = bytes[end];
    const letter = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
    if (!letter && !(end > at && c >= 48 && c <= 57)) break;
    end++;
  }
  if (end - at < 3 || end - at > 80 || bytes[end] !== 0) return undefined;
  return String.fromCharCode(...bytes.subarray(at, end));
}

/**
 * The names of the native entries of the executable at `path` (see {@link nativeEntryNames}),
 * read with binutils' `readelf`; undefined where it is not installed.
 */
export async function executableEntryNames(
  path: string,
): Promise<Map<number, string> | undefined> {
  const readelf = async (flag: string) => {
    const { success, stdout } = await new Deno.Command("readelf", {
      args: [flag, path],
      stdout: "piped",
      stderr: "null",
    }).output();
    if (!success) throw new Error(`readelf ${flag} ${path} failed`);
    return new TextDecoder().decode(stdout);
  };
  let relocations: string;
  try {
    relocations = await readelf("-rW");
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
  return nativeEntryNames(await Deno.readFile(path), relocations, await readelf("-SW"));
}

/** A native entry's inclusive instructions and how often it was called. */
export interface EntryCost {
  cost: number;
  calls: number;
}

/**
 * The inclusive costs of the calls into named native entries of the object file `binary`
 * (its path as callgrind names it), by name.
 */
export function inclusiveByNativeEntry(
  calls: readonly CallCost[],
  binary: string,
  names: ReadonlyMap<number, string>,
): Map<string, EntryCost> {
  const byName = new Map<string, EntryCost>();
  for (const call of calls) {
    if (call.object !== binary) continue;
    const name = names.get(call.target);
    if (name === undefined) continue;
    const entry = byName.get(name);
    if (entry === undefined) byName.set(name, { cost: call.cost, calls: call.count });
    else {
      entry.cost += call.cost;
      entry.calls += call.count;
    }
  }
  return byName;
}
