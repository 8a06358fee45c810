import fc from "fast-check";
import { assert, assertThrows } from "../assert.ts";
import {
  checkSizes,
  jsonLengthBound,
  OutcomeTooLargeError,
} from "../../src/handling/outcome_sizes.ts";
import { Resource } from "../../src/structs/resources.ts";
import { OBJECT_SIZE_LIMIT } from "../../src/structs/size_limits.ts";

const KEX = new Resource({ group: "kopf.dev", version: "v1", plural: "kopfexamples" });
const body = { metadata: { name: "n", namespace: "ns" }, spec: { field: "value" } };

Deno.test("the bound of a patch's JSON length is never below the length itself", () => {
  fc.assert(
    fc.property(fc.jsonValue(), (value) => {
      return jsonLengthBound(value, Infinity) >= JSON.stringify(value).length;
    }),
    { numRuns: 500 },
  );
  // Characters JSON escapes as six: the worst case of a string.
  const controls = "\u0001\u0002\u001f".repeat(100);
  assert(
    jsonLengthBound({ [controls]: controls }, Infinity) >=
      JSON.stringify({ [controls]: controls }).length,
  );
});

Deno.test("a walk past the limit stops, and says more than the limit", () => {
  const wide = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, "v"]));
  const bound = jsonLengthBound(wide, 1_000);
  assert(bound > 1_000 && bound < 2_000, String(bound));
});

Deno.test("a small outcome passes; one the API server would refuse is one error naming its largest field", () => {
  checkSizes(body, { status: { createFn: { started: 1 } } }, KEX);
  const huge = "x".repeat(OBJECT_SIZE_LIMIT);
  const error = assertThrows(
    () => checkSizes(body, { status: { createFn: huge, small: 1 } }, KEX),
    OutcomeTooLargeError,
  );
  assert(error.message.includes("status.createFn"), error.message);
  // A patch within the bound but big enough to be serialized: still passes.
  checkSizes(body, { status: { createFn: "x".repeat(OBJECT_SIZE_LIMIT / 20) } }, KEX);
});
