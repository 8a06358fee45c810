/**
 * Exec credential plugins: what their failures say, and what they never say.
 */
import { assert, assertRejects, assertStringIncludes } from "../assert.ts";
import { LoginError } from "../../src/structs/errors.ts";
import { parseExecCredential, runExecPlugin } from "../../src/client/exec_credentials.ts";

async function plugin(script: string): Promise<{ dir: string; command: string }> {
  const dir = await Deno.makeTempDir();
  const command = `${dir}/plugin.sh`;
  await Deno.writeTextFile(command, `#!/bin/sh\n${script}\n`);
  await Deno.chmod(command, 0o755);
  return { dir, command };
}

Deno.test("a failing plugin is reported with its stderr, never with what it printed on stdout", async () => {
  const { dir, command } = await plugin(
    'echo \'{"status":{"token":"leaked-secret-123"}}\'\necho "session expired, run login" >&2\nexit 1',
  );
  try {
    const error = await assertRejects(
      () =>
        runExecPlugin({ apiVersion: "client.authentication.k8s.io/v1", command }, {
          file: `${dir}/config`,
          directory: dir,
          user: "u",
          cluster: { server: "https://k" },
        }),
      LoginError,
    );
    assertStringIncludes(error.message, "failed with exit code 1: session expired, run login");
    assert(!error.message.includes("leaked-secret-123"), error.message);
    // Without a word on stderr, stdout is still not quoted.
    await Deno.writeTextFile(
      command,
      '#!/bin/sh\necho \'{"token":"leaked-secret-123"}\'\nexit 1\n',
    );
    const silent = await assertRejects(
      () =>
        runExecPlugin({ apiVersion: "client.authentication.k8s.io/v1", command }, {
          file: `${dir}/config`,
          directory: dir,
          user: "u",
          cluster: { server: "https://k" },
        }),
      LoginError,
    );
    assertStringIncludes(silent.message, "failed with exit code 1.");
    assert(!silent.message.includes("leaked-secret-123"), silent.message);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an output that is not an ExecCredential is described, not quoted", () => {
  for (const stdout of ['{"token": "leaked-secret-123"}', "leaked-secret-123"]) {
    try {
      parseExecCredential(stdout, "client.authentication.k8s.io/v1", "the plugin");
      throw new Error("accepted");
    } catch (error) {
      assert(error instanceof LoginError);
      assert(!error.message.includes("leaked-secret-123"), error.message);
    }
  }
});
