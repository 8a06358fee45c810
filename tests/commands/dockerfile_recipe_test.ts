/**
 * The Dockerfile recipe of `kopf manifests --dockerfile`: the operator's files imported
 * statically by the entry module, the permissions baked in, a non-root user.
 */
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { dockerfile, entrySource } from "../../src/commands/dockerfile_recipe.ts";

Deno.test("the Dockerfile recipe: the files imported statically, the permissions baked in", () => {
  const text = dockerfile({
    operatorFiles: ["operator.ts", "./handlers/more.ts", "npm:some-operator"],
    denoVersion: "2.9.6",
    cli: "jsr:@kopf/kopf@^0.1.0/cli",
    permissions: ["--allow-net", "--allow-read=/var/run/secrets/kubernetes.io/serviceaccount"],
    v8Flags: "--v8-flags=--max-semi-space-size=4",
  });
  assertStringIncludes(text, "FROM denoland/deno:2.9.6 AS build");
  assertStringIncludes(text, `'import "./operator.ts";'`);
  assertStringIncludes(text, `'import "./handlers/more.ts";'`);
  assertStringIncludes(text, `'import "npm:some-operator";'`);
  assertStringIncludes(text, "--allow-read=/var/run/secrets/kubernetes.io/serviceaccount \\");
  assertStringIncludes(text, "--v8-flags=--max-semi-space-size=4");
  assertStringIncludes(text, "USER 65532:65532");
  assert(!text.includes("--allow-all"));
  assertEquals(
    entrySource(["operator.ts"], "jsr:@kopf/kopf/cli"),
    'import "./operator.ts";\nimport { main } from "jsr:@kopf/kopf/cli";\n' +
      'await main(["run", ...Deno.args]);\n',
  );
});
