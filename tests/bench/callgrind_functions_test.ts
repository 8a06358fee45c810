/**
 * The instructions bench's attribution of callgrind's counts to functions: a dump by address,
 * V8's perf map, the process's mappings, and the names of the native entries recovered from
 * the relocations of a stripped executable (a synthetic one, and the `deno` running this).
 */
import {
  executableEntryNames,
  inclusiveByNativeEntry,
  loadAddresses,
  nativeEntryNames,
  ownByFunction,
  parseDump,
  perfMap,
} from "../../scripts/bench/support/callgrind_functions.ts";
import { assert, assertEquals } from "../assert.ts";

// A dump by address as callgrind 3.19 writes it with --dump-instr=yes --dump-line=no
// --compress-pos=no --compress-strings=no: the line after a `calls=` is the call's site and
// its inclusive cost, not the caller's own.
const DUMP = [
  "positions: instr",
  "events: Ir",
  "",
  "ob=/usr/bin/deno",
  "fl=???",
  "fn=0x0000000001e81ba0",
  "0x1e81ba0 10",
  "0x1e81ba7 5",
  "cob=/usr/lib/x86_64-linux-gnu/libc.so.6",
  "cfn=memcpy",
  "calls=2 0x8a000",
  "0x1e81ba7 400",
  "cfn=0x0000000002000000",
  "calls=3 0x2000000",
  "0x1e81ba7 900",
  "",
  "ob=???",
  "fl=???",
  "fn=0x00007f0000001000",
  "0x7f0000001000 7",
  "0x7f0000001010 3",
  "0x7f0000002000 20",
  "",
  "ob=/usr/lib/x86_64-linux-gnu/libc.so.6",
  "fn=memcpy",
  "0x8a000 400",
  "totals: 1345",
].join("\n");

Deno.test("a dump by address: own costs by object file, calls with their inclusive costs", () => {
  const { own, calls } = parseDump(DUMP);
  assertEquals(own.get("/usr/bin/deno"), new Map([[0x1e81ba0, 10], [0x1e81ba7, 5]]));
  assertEquals(
    own.get("???"),
    new Map([[0x7f0000001000, 7], [0x7f0000001010, 3], [0x7f0000002000, 20]]),
  );
  assertEquals(calls, [
    { object: "/usr/lib/x86_64-linux-gnu/libc.so.6", target: 0x8a000, count: 2, cost: 400 },
    { object: "/usr/bin/deno", target: 0x2000000, count: 3, cost: 900 },
  ]);
});

Deno.test("own costs by the perf map's names, tiers as one; the rest by object file", () => {
  const ranges = perfMap([
    "7f0000001000 20 JS:~handle file:///home/me/kopf/src/op.ts:1:1",
    // The same memory, written later: kept.
    "7f0000001000 40 JS:*handle file:///home/me/kopf-2/src/op.ts:1:1",
    "7f0000002000 10 Builtin:JsonParse",
    "1f89ba0 7 Builtin:StoreIC", // an embedded builtin, at its address once loaded
    "bad line",
  ].join("\n"));
  assertEquals(ranges.length, 3);
  // Code freed and its memory reused twice over: the latest of the overlapping pieces is kept.
  assertEquals(
    perfMap([
      "1000 100 JS:~old file:///op.ts:1:1",
      "1080 10 JS:~older-than-the-last file:///op.ts:2:1",
      "1040 100 JS:~newest file:///op.ts:3:1",
    ].join("\n")).map((range) => range.name),
    ["JS:~newest file:///op.ts:3:1"],
  );
  const bases = loadAddresses(
    "00108000-01c96000 r--p 00000000 fe:00 1442216    /usr/bin/deno\n" +
      "01f0c000-05c00000 r-xp 01b8e000 fe:00 1442216    /usr/bin/deno\n" +
      "7f0000000000-7f0000100000 rwxp 00000000 00:00 0\n",
  );
  assertEquals(bases, new Map([["/usr/bin/deno", 0x108000]]));
  const { own } = parseDump(DUMP);
  // 0x1e81ba0 + 0x108000 is the builtin's; 0x1e81ba7 + 0x108000 is past it, native code.
  assertEquals(
    ownByFunction(own, ranges, bases),
    new Map([
      ["Builtin:StoreIC", 10],
      ["[deno]", 5],
      ["handle src/op.ts:1:1", 10],
      ["Builtin:JsonParse", 20],
      ["[libc.so.6]", 400],
    ]),
  );
});

/**
 * A synthetic executable: names in `.rodata`, pointers to them and to code, relocated. Its
 * read-only data lies 0x100000 further in memory than in the file.
 */
function syntheticBinary(): { bytes: Uint8Array; relocations: string; sections: string } {
  const bytes = new Uint8Array(0x3000);
  const put = (at: number, text: string) => bytes.set(new TextEncoder().encode(`${text}\0`), at);
  put(0x1000, "JsonParse");
  put(0x1010, "ObjectDefineProperty");
  put(0x1030, "not an identifier!");
  const relocation = (place: number, pointee: number) =>
    `${place.toString(16).padStart(16, "0")}  0000000000000008 R_X86_64_RELATIVE` +
    `                         ${pointee.toString(16)}`;
  return {
    bytes,
    relocations: [
      "Relocation section '.rela.dyn' at offset 0x7640 contains 5 entries:",
      relocation(0x5000, 0x101000), // a builtin's name, its entry 16 bytes on
      relocation(0x5010, 0x2100),
      relocation(0x5100, 0x101010), // a runtime function's name, its entry 8 bytes on
      relocation(0x5108, 0x2200),
      relocation(0x5200, 0x101030), // not a name
      relocation(0x5208, 0x2300),
    ].join("\n"),
    sections: [
      "  [11] .rodata           PROGBITS        0000000000101000 001000 001000 00 AMS  0   0 4096",
      "  [14] .text             PROGBITS        0000000000002000 002000 001000 00 AXo  0   0 4096",
    ].join("\n"),
  };
}

Deno.test("native entries are named from the relocations of their tables", () => {
  const { bytes, relocations, sections } = syntheticBinary();
  const names = nativeEntryNames(bytes, relocations, sections);
  assertEquals(names, new Map([[0x2100, "JsonParse"], [0x2200, "ObjectDefineProperty"]]));
  const calls = [
    { object: "/usr/bin/deno", target: 0x2200, count: 3, cost: 9000 },
    { object: "/usr/bin/deno", target: 0x2200, count: 1, cost: 3000 },
    { object: "/usr/bin/deno", target: 0x2300, count: 1, cost: 50 },
    { object: "/lib/libc.so.6", target: 0x2100, count: 1, cost: 70 },
  ];
  assertEquals(
    inclusiveByNativeEntry(calls, "/usr/bin/deno", names),
    new Map([["ObjectDefineProperty", { cost: 12000, calls: 4 }]]),
  );
});

/** Whether binutils' readelf is installed: without it, the last test is ignored, visibly. */
const READELF = await new Deno.Command("readelf", { args: ["--version"], stdout: "null" })
  .output().then(({ success }) => success, () => false);

Deno.test({
  name: "the deno running this: its runtime functions and C++ builtins are named",
  ignore: !READELF,
  fn: async () => {
    const names = await executableEntryNames(Deno.execPath());
    assert(names !== undefined, "readelf is installed, yet no names were read");
    const known = new Set(names.values());
    for (
      const name of ["JsonParse", "ObjectDefineProperty", "LoadIC_Miss", "OptimizeMaglevEager"]
    ) {
      assert(known.has(name), `${name} is not among the ${names.size} names found`);
    }
  },
});
