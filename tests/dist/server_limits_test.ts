/**
 * The limits of the servers under Node 20 (the npm build): the webhook server of the public
 * API keeps one client to its share of the connections while another's reviews are
 * answered at once, and closes a silent connection, a trickled head and an idle kept-alive
 * connection at their deadlines, as it does under Deno.
 */
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { ROOT, run, runDeno } from "../platform/commands.ts";

interface Report {
  reviews: ({ status: number; allowed: boolean; ms: number } | string)[];
  idleOpen: number;
  silentMs: number;
  tricklingMs: number;
  trickled: number;
  keptMs: number;
  keptAnswer: string;
}

Deno.test("under Node: a client keeps only its share, and slow or silent connections are cut at their deadlines", async () => {
  const node = await run("node", ["--version"]);
  assert(node.stdout.startsWith("v20."), `Node 20 is needed, found ${node.stdout}`);
  const out = await Deno.makeTempDir({ prefix: "kopf-npm-limits-" });
  try {
    const built = await runDeno(["run", "-A", `${ROOT}/scripts/build_npm.ts`, "--outdir", out]);
    assertEquals(built.code, 0, built.stderr);
    const installed = await runDeno(["install", "--node-modules-dir=auto"], { cwd: out });
    assertEquals(installed.code, 0, installed.stderr);
    await Deno.copyFile(`${ROOT}/tests/dist/server_limits.mjs`, `${out}/server_limits.mjs`);
    const ran = await run("node", ["server_limits.mjs"], { cwd: out });
    assertEquals(ran.code, 0, ran.stderr);
    const report: Report = JSON.parse(ran.stdout.trim().split("\n").at(-1)!);

    // 64 idle connections from 127.0.0.2: it keeps its 3; reviews from 127.0.0.1 answer.
    assertEquals(report.idleOpen, 3);
    for (const review of report.reviews) {
      assert(typeof review !== "string", `a review failed: ${review}`);
      assertEquals([review.status, review.allowed], [200, true]);
      assert(review.ms < 1000, `a review took ${review.ms} ms`);
    }
    // 61 refusals, one line on the server's logger.
    const refusals = ran.stderr.split("\n").filter((line) => line.includes("closed a connection"));
    assertEquals(refusals.length, 1, ran.stderr);
    assertStringIncludes(refusals[0], "from 127.0.0.2 unanswered: that client holds 3 connections");

    // The header timeout is 1 s from the connection's start, whatever comes or not.
    assert(report.silentMs >= 900 && report.silentMs < 3000, `silent: ${report.silentMs} ms`);
    assert(
      report.tricklingMs >= 900 && report.tricklingMs < 3000,
      `trickling: ${report.tricklingMs} ms`,
    );
    assert(report.trickled < 40, `the server read ${report.trickled} trickled bytes`);
    // Answered, then idle: closed after the idle timeout (and Node's second of grace).
    assertEquals(report.keptAnswer, "HTTP/1.1 200 OK");
    assert(report.keptMs >= 900 && report.keptMs < 4000, `kept alive: ${report.keptMs} ms`);
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});
