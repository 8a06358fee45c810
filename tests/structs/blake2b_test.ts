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

// Expected values from Python's hashlib.blake2b(data, digest_size=n, key=k).hexdigest();
// the first is the keyed vector of the BLAKE2 reference's known answers (empty input).
Deno.test("keyed blake2b matches Python's hashlib, with the key block alone or before data", () => {
  assertEquals(
    hex(blake2b(utf8(""), 64, Uint8Array.from({ length: 64 }, (_, i) => i))),
    "10ebb67700b1868efb4417987acf4690ae9d972fb7a590c2f02871799aaa4786" +
      "b5e996e8f0f4eb981fc214b005f42d2ff4233499391653df7aefcbc13fc51568",
  );
  assertEquals(
    hex(blake2b(utf8("abc"), 32, utf8("uid-1"))),
    "8e1631807b9d5567ed23a142b365650e6eb86a19a56ada4c588f4f4dfba2e385",
  );
  assertEquals(hex(blake2b(utf8(""), 16, utf8("k"))), "0af9f47b3095761505669b03171459bd");
  assertEquals(
    hex(blake2b(utf8("x".repeat(128)), 32, utf8("0123456789abcdef"))),
    "157b75e0e66e26af06cb9f927cb3e77eba6143711245830d28dc68a70d3ead55",
  );
  assertEquals(
    hex(blake2b(utf8("x".repeat(300)), 64, Uint8Array.from({ length: 64 }, (_, i) => i))),
    "1fbb6961499cbeb216b1da69fe077333d11e1a7fe6a298af3e8344f671625e5d" +
      "28b36cf9043323c3f726792177a0a57afd0ca394c3b2a8fd262ea102ddf3dcc3",
  );
});

Deno.test("blake2b refuses keys over 64 bytes", () => {
  assertThrows(() => blake2b(utf8("a"), 32, new Uint8Array(65)), RangeError, "at most 64");
});
