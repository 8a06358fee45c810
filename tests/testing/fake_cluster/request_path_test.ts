/**
 * The one reading of a request's path: its segments, and why a path that is not in its
 * canonical form is not served.
 */
import { ApiError } from "../../../src/testing/fake_cluster/errors.ts";
import { requestPathOf } from "../../../src/testing/fake_cluster/request_path.ts";
import { assertEquals, assertStringIncludes, assertThrows } from "../../assert.ts";

const of = (path: string) => requestPathOf(new URL(`http://x${path}`));

Deno.test("request path: canonical paths, with trailing slashes dropped and escapes decoded", () => {
  assertEquals(of("/api/v1/namespaces/default/pods"), {
    path: "/api/v1/namespaces/default/pods",
    decoded: "/api/v1/namespaces/default/pods",
    segments: ["api", "v1", "namespaces", "default", "pods"],
    oddity: undefined,
  });
  assertEquals(of("/version//").segments, ["version"]);
  assertEquals(of("/version//").oddity, undefined);
  assertEquals(of("/").segments, []);
  assertEquals(of("/%61pi/v1").segments, ["api", "v1"]);
  assertEquals(of("/%61pi/v1").decoded, "/api/v1");
});

Deno.test("request path: empty, dot and slash-bearing segments make a path not canonical", () => {
  const doubled = of("//apis/apps/v1");
  assertEquals(doubled.segments, ["apis", "apps", "v1"], "read as its canonical form");
  assertStringIncludes(doubled.oddity!, "empty segment");
  assertStringIncludes(doubled.oddity!, "send /apis/apps/v1");
  assertStringIncludes(of("/apis//apps/v1").oddity!, "empty segment");
  assertStringIncludes(of("/apis/apps%2Fv1").oddity!, 'segment "apps%2Fv1" has an encoded slash');
  assertEquals(of("/apis/apps%2Fv1").segments, ["apis", "apps/v1"]);
  // Dot segments, also escaped, are resolved by the URL parser before anyone sees them;
  // an escaped escape is decoded once, to a name.
  assertEquals(of("/apis/x/../apps/v1").oddity, undefined);
  assertEquals(of("/apis/x/%2e%2e/apps/v1").segments, ["apis", "apps", "v1"]);
  assertEquals(of("/apis/%252e%252e").segments, ["apis", "%2e%2e"]);
  assertEquals(of("/apis/%252e%252e").oddity, undefined);
});

Deno.test("request path: a path that is not properly percent-encoded is a 400", () => {
  const error = assertThrows(() => of("/api/%zz"), ApiError);
  assertEquals(error.code, 400);
  assertStringIncludes(error.message, "not properly percent-encoded");
});
