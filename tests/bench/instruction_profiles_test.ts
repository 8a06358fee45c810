/**
 * The compilation summary of `bench instructions` (`scripts/bench/support/instruction_profiles.ts`):
 * which of V8's native entries compile or tier code, and the table made of them.
 */
import {
  compilingShare,
  compilingTable,
  type InstructionProfile,
  isCompiling,
} from "../../scripts/bench/support/instruction_profiles.ts";
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";

/** A profile whose own instructions add up to `total`, with these native entries. */
function profile(total: number, native?: Record<string, number>): InstructionProfile {
  return {
    own: new Map([["[deno]", total * 0.75], ["'run src/a.ts:1:1", total * 0.25]]),
    native: native === undefined
      ? undefined
      : new Map(Object.entries(native).map(([name, cost]) => [name, { cost, calls: 1 }])),
  };
}

Deno.test("the compiling entries: optimizing, lazy and baseline compiles, tiering, deopts", () => {
  for (
    const name of [
      "OptimizeMaglevEager",
      "OptimizeTurbofanEager",
      "StartMaglevOptimizeJob",
      "StartTurbofanOptimizeJob",
      "CompileLazy",
      "CompileOptimizedOSR",
      "InstallBaselineCode",
      "BytecodeBudgetInterrupt_Ignition",
      "BytecodeBudgetInterruptWithStackCheck_Sparkplug",
      "NotifyDeoptimized",
    ]
  ) assert(isCompiling(name), name);
  for (const name of ["JsonParse", "AllocateInYoungGeneration", "LoadIC_Miss", "DateNow"]) {
    assert(!isCompiling(name), name);
  }
});

Deno.test("the compiling share adds up the compiling entries and nothing else", () => {
  const counted = compilingShare(
    profile(1000, { OptimizeMaglevEager: 150, CompileLazy: 30, JsonParse: 400 }),
  );
  assertEquals(counted, { total: 1000, compiling: 180 });
  assertEquals(compilingShare(profile(1000)), undefined);
});

Deno.test("the compiling table gives each share and the part of kopf's excess", () => {
  const table = compilingTable(
    new Map([
      ["floor", profile(500, { OptimizeMaglevEager: 40, CompileLazy: 10, JsonParse: 30 })],
      ["kopf", profile(800, { OptimizeMaglevEager: 170, CompileLazy: 30, JsonParse: 20 })],
    ]),
    "floor",
  )!;
  assertStringIncludes(table, "| floor | 50 | 10.0% |");
  assertStringIncludes(table, "| kopf | 200 | 25.0% |");
  assertStringIncludes(table, "executes 300 instructions per object more than `floor`");
  assertStringIncludes(table, "+150 of them (50.0%) compile or tier");
});

Deno.test("the compiling table: none without named entries, no excess when kopf runs less", () => {
  assertEquals(compilingTable(new Map([["kopf", profile(800)]]), "floor"), undefined);
  const table = compilingTable(
    new Map([
      ["baseline", profile(900, { OptimizeMaglevEager: 200 })],
      ["kopf", profile(800, { OptimizeMaglevEager: 170 })],
    ]),
    "baseline",
  )!;
  assertStringIncludes(table, "| kopf | 170 | 21.3% |");
  assert(!table.includes("more than"), table);
});
