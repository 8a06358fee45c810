import { assert, assertEquals, assertThrows } from "../assert.ts";
import { ObjectAnswer } from "../../src/client/object_answers.ts";
import { APIResponseError } from "../../src/client/connection_errors.ts";

const answered = (text: string) => ({
  text,
  fullPath: "/api/v1/namespaces/ns/configmaps/x",
  status: 200,
});

Deno.test("an object's answer: its version read at once, the object parsed once when asked for", () => {
  const text = JSON.stringify({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "x", resourceVersion: "42" },
  });
  const answer = new ObjectAnswer(answered(text), "PATCH");
  assertEquals(answer.resourceVersion, "42");
  const body = answer.body;
  assertEquals(body, JSON.parse(text));
  assert(answer.body === body, "parsed once");
});

Deno.test("an object's answer: a version the scan cannot read plainly comes from the parsed object", () => {
  const escaped = '{"metadata":{"resourceVersion":"4\\u0032"}}';
  assertEquals(new ObjectAnswer(answered(escaped), "PATCH").resourceVersion, "42");
  assertEquals(new ObjectAnswer(answered('{"metadata":{}}'), "PATCH").resourceVersion, undefined);
  const empty = new ObjectAnswer(answered(""), "PATCH");
  assertEquals([empty.resourceVersion, empty.body], [undefined, undefined]);
  assertEquals(ObjectAnswer.parsed({ metadata: { resourceVersion: "7" } }).resourceVersion, "7");
});

Deno.test("an object's answer that is not JSON fails as the request would have, when read", () => {
  const answer = new ObjectAnswer(answered('{"metadata":{"resourceVersion":"5"}, oops'), "PATCH");
  assertEquals(answer.resourceVersion, "5");
  const error = assertThrows(() => answer.body, APIResponseError);
  assertEquals([error.code, error.method, error.path], [
    200,
    "PATCH",
    "/api/v1/namespaces/ns/configmaps/x",
  ]);
  assertThrows(() => answer.body, APIResponseError); // again, not undefined
  assertThrows(() => new ObjectAnswer(answered("<html>"), "PATCH"), APIResponseError);
});
