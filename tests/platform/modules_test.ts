/**
 * Locating modules: paths as `file:` URLs, and what to say when an optional package that a
 * feature needs is missing.
 */
import { fileUrlOf, isModuleNotFound, optionalPackageMessage } from "../../src/platform/modules.ts";
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";

Deno.test("a missing optional package: one line with the feature, the package and how to install it", async () => {
  // The real thing: a bare name that nothing maps.
  let missing: unknown;
  try {
    await import(["kopf", "no-such-package"].join("-"));
  } catch (error) {
    missing = error;
  }
  assert(missing !== undefined && isModuleNotFound(missing), String(missing));
  const message = optionalPackageMessage(
    "loginViaClient",
    "@kubernetes/client-node",
    missing,
    "loginWithKubeconfig",
  );
  assertEquals(
    message,
    "loginViaClient needs the optional package @kubernetes/client-node, which is not " +
      "installed: install it with `deno add npm:@kubernetes/client-node`, or use " +
      "loginWithKubeconfig instead.",
  );
  // Node's error for a package that is not installed.
  const node = Object.assign(new Error("Cannot find package 'x' imported from /a.js"), {
    code: "ERR_MODULE_NOT_FOUND",
  });
  assert(isModuleNotFound(node));
  assertStringIncludes(optionalPackageMessage("f", "x", node), "f needs the optional package x");
});

Deno.test("an optional package that is there but fails to load: the reason, in one line", () => {
  const broken = new SyntaxError("Unexpected token '<'\n    at some/file.js:1:1");
  assert(!isModuleNotFound(broken));
  const message = optionalPackageMessage("loginViaClient", "pkg", broken);
  assertEquals(
    message,
    "loginViaClient needs the optional package pkg, which fails to load " +
      "(Unexpected token '<'); reinstall it with `deno add npm:pkg`.",
  );
  assert(!message.includes("\n"));
});

Deno.test("operator files given as paths become file: URLs", () => {
  assert(fileUrlOf("x.ts").startsWith("file:///"));
  assert(fileUrlOf("/abs/x.ts") === "file:///abs/x.ts");
});
