import {
  AdmissionError,
  ErrorsMode,
  HandlerRetriesError,
  HandlerTimeoutError,
  LoginError,
  PermanentError,
  TemporaryError,
} from "../../src/structs/errors.ts";
import * as kopf from "../../mod.ts";
import { assert, assertEquals, assertThrows } from "../assert.ts";

Deno.test("a temporary error retries in 60 seconds unless told otherwise", () => {
  assertEquals(new TemporaryError("later").delay, 60);
  assertEquals(new TemporaryError("soon", { delay: 10 }).delay, 10);
  assertEquals(new TemporaryError("now", { delay: null }).delay, null);
  assertEquals(new TemporaryError().message, "");
  assertThrows(() => new TemporaryError("x", { delay: -1 }), TypeError, "seconds ≥ 0 or null");
});

Deno.test("timeouts, retries and admission errors are permanent errors", () => {
  for (
    const e of [new HandlerTimeoutError("t"), new HandlerRetriesError("r"), new AdmissionError("a")]
  ) {
    assert(e instanceof PermanentError && e instanceof Error);
  }
  assertEquals(new HandlerTimeoutError("t").name, "HandlerTimeoutError");
});

Deno.test("an admission error carries an HTTP code, 500 by default", () => {
  assertEquals(new AdmissionError("no").code, 500);
  assertEquals(new AdmissionError("Meh!", { code: 400 }).code, 400);
  assertThrows(() => new AdmissionError("x", { code: 42 }), TypeError, "HTTP status");
});

Deno.test("errors modes are named values", () => {
  assertEquals([ErrorsMode.TEMPORARY, ErrorsMode.PERMANENT, ErrorsMode.IGNORED], [
    "temporary",
    "permanent",
    "ignored",
  ]);
});

Deno.test("the login error lives with the other public errors and is kopf.LoginError", () => {
  const e = new LoginError("no credentials");
  assert(e instanceof Error && !(e instanceof PermanentError));
  assertEquals(e.name, "LoginError");
  assertEquals(kopf.LoginError, LoginError);
});
