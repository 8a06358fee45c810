/**
 * The V8 flags an operator process runs with when started through the `kopf` task or as
 * a compiled binary.
 *
 * By default V8 lets its heap grow to about four times the live data before collecting,
 * and sizes its young generation for allocation-heavy applications. An operator's live
 * data is small (a few hundred bytes per object) but it allocates fast while a burst of
 * objects is handled, so the defaults reserve several times what it needs: at 10,000
 * objects, ~220 MB of peak RSS instead of ~125 MB, for ~5-10% more throughput. These
 * flags make the old generation grow by 30% per collection and cap each young semi-space
 * at 4 MB. They set no hard limit: an operator with more objects still gets the heap it
 * needs. Embedders pass them themselves: `deno run --v8-flags=…` or `DENO_V8_FLAGS`;
 * on Node, `node --max-semi-space-size=4 --heap-growing-percent=30`.
 *
 * @module
 */

/** The V8 flags of operator processes; see the module docs. */
export const OPERATOR_V8_FLAGS: readonly string[] = [
  "--max-semi-space-size=4",
  "--heap-growing-percent=30",
];

/** The flags as one `deno` command-line argument. */
export function v8FlagsArgument(flags: readonly string[] = OPERATOR_V8_FLAGS): string {
  return `--v8-flags=${flags.join(",")}`;
}
