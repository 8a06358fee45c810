import { assertEquals, assertThrows } from "../assert.ts";
import { blake2b } from "../../src/structs/blake2b.ts";

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
const utf8 = (s: string) => new TextEncoder().encode(s);

// Expected values from Python's hashlib.blake2b(data, digest_size=n).hexdigest().
Deno.test("blake2b matches Python's hashlib for empty, short, block-sized and long inputs", () => {
  assertEquals(
    hex(blake2b(utf8(""))),
    "786a02f742015903c6c6fd852552d272912f4740e15847618a86e217f71f5419" +
      "d25e1031afee585313896444934eb04b903a685b1448b755d56f701afe9be2ce",
  );
  assertEquals(
    hex(blake2b(utf8("abc"), 64)),
    "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1" +
      "7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923",
  );
  assertEquals(hex(blake2b(utf8("abc"), 4)), "63906248");
  assertEquals(hex(blake2b(utf8("x".repeat(128)), 4)), "b0c663e3");
  assertEquals(
    hex(blake2b(utf8("x".repeat(129)), 32)),
    "03b0758fa71d249c846c2304a2b9996e6ae66ffa7e5528f9e612e089a360fc8d",
  );
  assertEquals(
    hex(blake2b(utf8("x".repeat(300)))),
    "fe42f4108dd98f9b4f19fb21f386dfbe9a860256176e0312a1f0de66a3aed2a5" +
      "ed361a16f6128fe27b6c88d8f39eeaddca46f1c2c9357965f893d0a7d64bd1cb",
  );
  assertEquals(hex(blake2b(utf8("ü"), 4)), "e02c8574");
});

Deno.test("blake2b refuses digest sizes outside 1..64", () => {
  assertThrows(() => blake2b(utf8("a"), 0), RangeError, "1..64");
  assertThrows(() => blake2b(utf8("a"), 65), RangeError, "1..64");
});
