/**
 * The client under narrow Deno permissions: a missing permission fails at once with
 * Deno's own error naming what to allow, instead of being retried as a network error.
 */
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { ROOT, runDeno } from "../platform/commands.ts";
import { UNDICI_ENV_VARIABLES } from "../../src/platform/undici_environment.ts";

const PROBE = `${ROOT}/tests/client/fixtures/insecure_probe.ts`;

async function probe(flags: string[]): Promise<Record<string, unknown>> {
  const result = await runDeno(["run", ...flags, PROBE], { cwd: ROOT });
  assertEquals(result.code, 0, result.stderr);
  return JSON.parse(result.stdout.trim().split("\n").pop()!);
}

Deno.test("insecure mode on Deno names the environment variables it needs, without retrying", async () => {
  const denied = await probe(["--allow-net=127.0.0.1"]);
  assertEquals(denied.error, "NotCapable");
  assertStringIncludes(String(denied.message), `Requires env access to "JEST_WORKER_ID"`);
  assert((denied.ms as number) < 10_000, `failed at once, not after retries: ${denied.ms} ms`);
  const allowed = await probe([
    "--allow-net=127.0.0.1",
    `--allow-env=${UNDICI_ENV_VARIABLES.join(",")}`,
  ]);
  assertEquals(allowed, { answer: { ok: true } });
});
