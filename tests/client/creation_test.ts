/**
 * Creating once: names picked for `generateName` as the API server picks them, the stamp,
 * and what a 409 AlreadyExists leads to, on a scripted server.
 */
import { assert, assertEquals, assertMatch, assertRejects } from "../assert.ts";
import { generateName, REQUEST_ID_ANNOTATION } from "../../src/client/creation.ts";
import { createObject } from "../../src/client/objects.ts";
import { APIConflictError } from "../../src/client/api_errors.ts";
import type { RawBody } from "../../src/structs/bodies.ts";
import { json, KEX, ScriptedServer, status } from "./scripted_server.ts";

Deno.test("a generated name is the prefix (cut to 58 characters) and five of the server's characters", () => {
  assertMatch(generateName("web-"), /^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  const long = generateName("x".repeat(70));
  assertEquals(long.length, 63);
  assert(long.startsWith("x".repeat(58)));
  const names = new Set(Array.from({ length: 50 }, () => generateName("a-")));
  assert(names.size > 45, "random");
});

Deno.test("a generated name taken by another object is replaced by a fresh one", async () => {
  const posted: RawBody[] = [];
  await using server = ScriptedServer.start((request) => {
    if (request.method === "GET") return json({ metadata: { name: "someone-else's" } });
    const body = JSON.parse(request.body) as RawBody;
    posted.push(body);
    return posted.length === 1
      ? status(409, "AlreadyExists", "taken")
      : json({ ...body, metadata: { ...body.metadata, uid: "u" } }, 201);
  });
  await using api = server.client();
  const created = await createObject(api, KEX, {
    metadata: { generateName: "kex-", namespace: "ns" },
  });
  assertEquals(posted.length, 2);
  const [first, second] = posted.map((b) => b.metadata!.name!);
  assert(first !== second && second.startsWith("kex-"), `${first} then ${second}`);
  assertEquals(created.metadata?.name, second);
  const stamps = posted.map((b) => b.metadata!.annotations![REQUEST_ID_ANNOTATION]);
  assertEquals(stamps[0], stamps[1], "one create, one stamp");
  assertEquals(server.requests.map((r) => r.method), ["POST", "GET", "POST"]);
});

Deno.test("a given name taken by another object is a 409 after reading it", async () => {
  await using server = ScriptedServer.start((request) =>
    request.method === "GET"
      ? json({ metadata: { name: "x", annotations: { [REQUEST_ID_ANNOTATION]: "theirs" } } })
      : status(409, "AlreadyExists", 'kopfexamples "x" already exists')
  );
  await using api = server.client();
  await assertRejects(
    () => createObject(api, KEX, { metadata: { name: "x", namespace: "ns" } }),
    APIConflictError,
    "already exists",
  );
  assertEquals(server.requests.map((r) => r.method), ["POST", "GET"]);
});

Deno.test("the caller's body is left as it was", async () => {
  await using server = ScriptedServer.start((request) => json(JSON.parse(request.body), 201));
  await using api = server.client();
  const body = { metadata: { generateName: "k-", namespace: "ns", annotations: { a: "b" } } };
  const created = await createObject(api, KEX, body);
  assertEquals(body, {
    metadata: { generateName: "k-", namespace: "ns", annotations: { a: "b" } },
  });
  assertEquals(created.metadata?.annotations?.a, "b");
  assert(created.metadata?.annotations?.[REQUEST_ID_ANNOTATION]);
});
