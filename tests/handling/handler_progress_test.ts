/** One handler's progress record: the ISO-8601 times as Python Kopf writes and reads them. */
import { assertEquals } from "../assert.ts";
import { formatIso8601, parseIso8601 } from "../../src/handling/handler_progress.ts";

Deno.test("ISO-8601 times parse in every form Kopf has written and format like Python", () => {
  const micros = Date.UTC(2020, 11, 31, 23, 59, 59) * 1000 + 123456;
  assertEquals(parseIso8601("2020-12-31T23:59:59.123456+00:00"), micros);
  assertEquals(parseIso8601("2020-12-31T23:59:59.123456"), micros);
  assertEquals(parseIso8601("2020-12-31T23:59:59.123456Z"), micros);
  assertEquals(parseIso8601("2021-01-01T01:59:59.123456+02:00"), micros);
  assertEquals(parseIso8601("2020-12-31T23:59:59.1234569"), micros);
  assertEquals(parseIso8601("2020-12-31T23:59:59"), micros - 123456);
  assertEquals(parseIso8601("not a time"), null);
  assertEquals(formatIso8601(micros), "2020-12-31T23:59:59.123456+00:00");
  assertEquals(formatIso8601(Date.UTC(2021, 0, 1) * 1000), "2021-01-01T00:00:00.000000+00:00");
});
