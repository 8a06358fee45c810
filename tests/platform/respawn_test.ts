/**
 * This program started again: with the permissions the process holds in full (and the
 * single `--allow-sys` kinds), the arguments given, in a process group of its own, its
 * exit code when a signal ends it as it chooses.
 */
import { respawnCommand } from "../../src/platform/respawn.ts";
import { run } from "./commands.ts";
import { assert, assertEquals } from "../assert.ts";

const PROBE = new URL("fixtures/respawn_probe.ts", import.meta.url).pathname;

Deno.test("the command: this runtime, the permissions held in full, the main module", () => {
  const { command, args } = respawnCommand(["run", "--verbose"]);
  assertEquals(command, Deno.execPath());
  assertEquals(args.slice(0, 2), ["run", "--no-prompt"]);
  // The tests run with -A: every permission is held in full.
  for (const flag of ["--allow-net", "--allow-read", "--allow-env", "--allow-run", "--allow-sys"]) {
    assert(args.includes(flag), `${flag} in ${args.join(" ")}`);
  }
  assertEquals(args.slice(-3), [Deno.mainModule, "run", "--verbose"]);
});

Deno.test("the child has what is held in full, its arguments, a process group of its own", async () => {
  const result = await run(Deno.execPath(), [
    "run",
    "--allow-read",
    "--allow-run",
    "--allow-env=HOME",
    "--allow-sys=hostname,osRelease",
    PROBE,
  ], { timeout: 60 });
  assertEquals(result.code, 0, result.stderr);
  const [child, parent, exit] = result.stdout.trim().split("\n").map((line) => JSON.parse(line));
  assertEquals(child, {
    args: ["child", "two words"],
    read: "granted",
    run: "granted",
    env: "prompt", // granted in part: not passed on
    hostname: "granted",
    osRelease: "granted",
    uid: "prompt",
  });
  assertEquals(parent.group, parent.pid, "the child leads a process group of its own");
  assert(parent.group !== parent.own);
  assertEquals(exit, { code: 3 });
});
