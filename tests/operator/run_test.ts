/**
 * `run()` in a real process: SIGTERM stops the operator gracefully (cleanup runs, exit
 * code 0); a failing start exits with code 1 and one line saying why.
 */
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { startCluster } from "./harness.ts";

const SCRIPT = new URL("./run_script.ts", import.meta.url).pathname;
const CONFIG = new URL("../../deno.json", import.meta.url).pathname;

/** How long a script may run before it is killed and its test fails. */
const DEADLINE_MS = 60_000;

/** A spawned script; `overdue` says whether it was killed for running past the deadline. */
interface Script {
  readonly child: Deno.ChildProcess;
  readonly overdue: () => boolean;
}

function spawn(...args: string[]): Script {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--config", CONFIG, "-A", SCRIPT, ...args],
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  // A safety net only: the tests wait for the output and the exit, never for a fixed time.
  let overdue = false;
  const guard = setTimeout(() => {
    overdue = true;
    child.kill("SIGKILL");
  }, DEADLINE_MS);
  void child.status.finally(() => clearTimeout(guard));
  return { child, overdue: () => overdue };
}

function assertInTime(script: Script, what: string): void {
  assert(!script.overdue(), `The script was killed after ${DEADLINE_MS / 1000}s: ${what}`);
}

/** Read stdout lines until one equals `line`; returns everything read so far. */
async function readUntil(
  reader: ReadableStreamDefaultReader<string>,
  line: string,
): Promise<string> {
  let text = "";
  while (!text.split("\n").includes(line)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`The process ended before printing ${line}: ${text}`);
    text += value;
  }
  return text;
}

Deno.test("run(): SIGTERM stops the operator gracefully with cleanup and exit code 0", async () => {
  await using cluster = await startCluster();
  const script = spawn(cluster.url);
  const { child } = script;
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  await readUntil(reader, "READY").catch((error) => {
    assertInTime(script, "it never printed READY");
    throw error;
  });
  child.kill("SIGTERM");
  let rest = "";
  for (let r = await reader.read(); !r.done; r = await reader.read()) rest += r.value;
  const [status, stderr] = await Promise.all([
    child.status,
    new Response(child.stderr).text(),
  ]);
  assertInTime(script, `it did not stop after SIGTERM: ${stderr}`);
  assertEquals(status.code, 0, stderr);
  assertEquals(rest.split("\n").filter(Boolean), ["CLEANUP", "STOPPED"]);
});

Deno.test("run(): a failing startup exits with code 1 and one line", async () => {
  await using cluster = await startCluster();
  const script = spawn(cluster.url, "fail");
  const { child } = script;
  const [status, stdout, stderr] = await Promise.all([
    child.status,
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
  ]);
  assertInTime(script, `it did not exit after the failed startup: ${stderr}`);
  assertEquals(status.code, 1);
  assert(!stdout.includes("READY"));
  const errors = stderr.split("\n").filter((l) => l.includes("The operator has failed"));
  assertEquals(errors.length, 1, stderr);
  assert(!stderr.includes("    at "), "no stack traces");
  assertStringIncludes(errors[0], "the database is unreachable");
});
