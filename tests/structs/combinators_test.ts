import { all, any, none, not } from "../../src/structs/combinators.ts";
import { assertEquals, assertThrows } from "../assert.ts";

const startsKopf = ({ name }: { name: string }) => name.startsWith("kopf-");
const endsOne = ({ name }: { name: string }) => name.endsWith("-1");

Deno.test("combinators behave as every/some/none/negation over callbacks", () => {
  const kw = (name: string) => ({ name });
  assertEquals(
    [all([startsKopf, endsOne])(kw("kopf-1")), all([startsKopf, endsOne])(kw("kopf-2"))],
    [true, false],
  );
  assertEquals([any([startsKopf, endsOne])(kw("x-1")), any([startsKopf, endsOne])(kw("x-2"))], [
    true,
    false,
  ]);
  assertEquals([none([startsKopf, endsOne])(kw("x-2")), none([startsKopf, endsOne])(kw("x-1"))], [
    true,
    false,
  ]);
  assertEquals([not(startsKopf)(kw("x")), not(startsKopf)(kw("kopf-x"))], [true, false]);
  assertEquals([all([])(), any([])(), none([])()], [true, false, true]);
});

Deno.test("value callbacks combine too, with their two arguments", () => {
  const some = (value: unknown) => typeof value === "string" && value.startsWith("some");
  const label = (value: unknown) => typeof value === "string" && value.endsWith("label");
  assertEquals(all([some, label])("somelabel"), true);
  assertEquals(all([some, label])("some"), false);
});

Deno.test("combinators refuse non-functions", () => {
  assertThrows(() => all([1 as never]), TypeError, "kopf.all() takes an array of functions");
  assertThrows(() => not("x" as never), TypeError, "kopf.not() takes a function");
});
