/**
 * The DER encoder of the certificates: canonical encodings, and reading them back.
 */
import { assertEquals, assertThrows } from "../assert.ts";
import {
  decodeOid,
  namedBits,
  oid,
  readElement,
  smallInteger,
  tlv,
} from "../../src/platform/der.ts";

Deno.test("the DER encoder produces the canonical encodings", () => {
  const hex = (b: Uint8Array) => [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  assertEquals(hex(oid("1.2.840.10045.4.3.2")), "06082a8648ce3d040302");
  assertEquals(decodeOid(readElement(oid("2.5.29.17")).content), "2.5.29.17");
  assertEquals(hex(smallInteger(0)), "020100");
  assertEquals(hex(smallInteger(128)), "02020080"); // a leading zero keeps it positive
  assertEquals(hex(namedBits([0, 5, 6])), "03020186"); // keyUsage: 1 unused bit
  assertEquals(hex(namedBits([0])), "03020780");
  const long = tlv(0x04, new Uint8Array(300));
  assertEquals(hex(long.subarray(0, 4)), "0482012c");
  assertEquals(readElement(long).content.length, 300);
  assertThrows(() => readElement(long.subarray(0, 100)), Error, "longer than the data");
});
