/**
 * A missing permission becomes one line naming the exact flag to add — checked against
 * the errors Deno itself throws: re-running with the suggested flag must succeed.
 */
import {
  describePermissionError,
  findMissingPermission,
  flagFor,
  PermissionSet,
} from "../../src/platform/permission_flags.ts";
import { assert, assertEquals, assertMatch, assertThrows } from "../assert.ts";
import { ROOT, run, runDeno } from "./commands.ts";
import { ConfigurationError } from "../../src/structs/errors.ts";

/** A child script doing one guarded action; it prints the permission line or `ok`. */
const PROBE = `
import { describePermissionError } from "${ROOT}/src/platform/permission_flags.ts";
const [action, arg] = Deno.args;
const actions = {
  read: () => Deno.readTextFile(arg),
  write: () => Deno.writeTextFile(arg, "x"),
  env: () => Deno.env.get(arg),
  hostname: () => Deno.hostname(),
  run: () => new Deno.Command(arg).output(),
  connect: async () => (await fetch(arg)).text(),
  listen: () => Deno.listen({ hostname: "127.0.0.1", port: 0 }).close(),
  import: () => import(arg),
};
try {
  await actions[action]();
  console.log("ok");
} catch (error) {
  console.log(describePermissionError(error) ?? "not a permission error: " + error);
  Deno.exit(3);
}
`;

Deno.test("each Deno permission failure names the exact flag, and that flag is enough", async () => {
  const dir = await Deno.makeTempDir();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    return new Response("pong");
  });
  try {
    const probe = `${dir}/probe.ts`;
    await Deno.writeTextFile(probe, PROBE);
    await Deno.writeTextFile(`${dir}/config`, "kind: Config\n");
    await Deno.writeTextFile(`${dir}/module.ts`, "export const x = 1;\n");
    const url = `http://127.0.0.1:${server.addr.port}/`;
    const cases: [string, string, string][] = [
      ["read", `${dir}/config`, `--allow-read=${dir}/config`],
      ["write", `${dir}/out.txt`, `--allow-write=${dir}/out.txt`],
      ["env", "KUBECONFIG", "--allow-env=KUBECONFIG"],
      ["hostname", "", "--allow-sys=hostname"],
      ["run", "true", "--allow-run=true"],
      ["connect", url, `--allow-net=127.0.0.1:${server.addr.port}`],
      ["listen", "", "--allow-net=127.0.0.1"],
      ["import", `file://${dir}/module.ts`, `--allow-read=${dir}/module.ts`],
    ];
    for (const [action, arg, flag] of cases) {
      // The probe module itself and the permissions module are loaded statically.
      const denied = await runDeno(["run", "--no-prompt", probe, action, arg]);
      assertEquals(denied.code, 3, `${action}: ${denied.stdout}${denied.stderr}`);
      const line = denied.stdout.trim();
      assert(!line.includes("\n"), `${action}: one line`);
      assertMatch(line, /^Missing permission: \w+ access/);
      const suggested = /Run again with (\S+)/.exec(line)?.[1];
      assertEquals(suggested, flag, `${action}: ${line}`);
      const allowed = await runDeno(["run", "--no-prompt", suggested!, probe, action, arg]);
      assertEquals(allowed.stdout.trim(), "ok", `${action} with ${suggested}: ${allowed.stdout}`);
    }
  } finally {
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("permission errors are found inside causes and aggregate errors", () => {
  const inner = new Deno.errors.NotCapable(
    'Requires read access to "/home/me/.kube/config", run again with the --allow-read flag',
  );
  const wrapped = new Error("login failed", { cause: new Error("loading", { cause: inner }) });
  assertEquals(findMissingPermission(wrapped), {
    kind: "read",
    target: "/home/me/.kube/config",
    flag: "--allow-read=/home/me/.kube/config",
  });
  const aggregate = new AggregateError([new Error("other"), wrapped], "all logins failed");
  assertEquals(findMissingPermission(aggregate)?.flag, "--allow-read=/home/me/.kube/config");
  assertEquals(
    describePermissionError(
      new TypeError("Requires env access, run again with the --allow-env flag"),
    ),
    "Missing permission: env access. Run again with --allow-env; " +
      "`kopf permissions` prints the whole minimal set.",
  );
  assertEquals(findMissingPermission(new Error("connection refused")), undefined);
  assertEquals(describePermissionError("just a string"), undefined);
  assertEquals(describePermissionError(undefined), undefined);
  // Cycles in causes do not hang the search.
  const a = new Error("a");
  const b = new Error("b", { cause: a });
  (a as { cause?: unknown }).cause = b;
  assertEquals(findMissingPermission(a), undefined);
});

Deno.test("Node's permission-model errors name Node's flags", () => {
  const error = Object.assign(new Error("Access to this API has been restricted"), {
    code: "ERR_ACCESS_DENIED",
    permission: "FileSystemRead",
    resource: "/etc/kube/config",
  });
  assertEquals(findMissingPermission(error), {
    kind: "read",
    target: "/etc/kube/config",
    flag: "--allow-fs-read=/etc/kube/config",
    node: true,
  });
  const spawn = Object.assign(new Error("denied"), {
    code: "ERR_ACCESS_DENIED",
    permission: "ChildProcess",
  });
  assertEquals(findMissingPermission(spawn)?.flag, "--allow-child-process");
});

Deno.test("a permission set prints one flag per kind, in a stable order", () => {
  const set = new PermissionSet()
    .add("sys", "hostname", "identity")
    .add("read", "/a/config", "kubeconfig")
    .add("net", "127.0.0.1:6443", "API server")
    .add("read", "/a/ca.crt", "CA")
    .add("read", "/a/config", "kubeconfig again")
    .add("env", "KUBECONFIG", "kubeconfig");
  assertEquals(set.flags(), [
    "--allow-net=127.0.0.1:6443",
    "--allow-read=/a/config,/a/ca.crt",
    "--allow-env=KUBECONFIG",
    "--allow-sys=hostname",
  ]);
  assertEquals(set.grants().length, 5, "duplicates are dropped");
  set.add("net", undefined, "somewhere unknown");
  assertEquals(set.flags()[0], "--allow-net", "a whole-kind grant covers the targets");
  assertEquals(new PermissionSet().merge(set).flags(), set.flags());
  assertThrows(() => set.add("read", "/a,b", "x"), ConfigurationError, "cannot contain one");
  assertEquals(flagFor("net", "0.0.0.0:0"), "--allow-net=0.0.0.0");
  assertEquals(flagFor("env"), "--allow-env");
});

Deno.test("under Node's permission model the line names Node's flag, and that flag is enough", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const bundled = await runDeno([
      "bundle",
      "--quiet",
      "--platform=deno",
      `--output=${dir}/permissions.js`,
      `${ROOT}/src/platform/permission_flags.ts`,
    ]);
    assertEquals(bundled.code, 0, bundled.stderr);
    await Deno.writeTextFile(`${dir}/config`, "kind: Config\n");
    await Deno.writeTextFile(
      `${dir}/probe.mjs`,
      'import fs from "node:fs";\n' +
        'import { describePermissionError } from "./permissions.js";\n' +
        "try {\n" +
        "  fs.readFileSync(process.argv[2]);\n" +
        '  console.log("ok");\n' +
        "} catch (error) {\n" +
        "  console.log(describePermissionError(error) ?? String(error));\n" +
        "}\n",
    );
    // Node 20.20 takes --allow-fs-read once per path.
    const own = [`${dir}/probe.mjs`, `${dir}/permissions.js`];
    const node = (readable: string[]) =>
      run("node", [
        "--experimental-permission",
        ...readable.map((path) => `--allow-fs-read=${path}`),
        `${dir}/probe.mjs`,
        `${dir}/config`,
      ]);
    const denied = await node(own);
    const line = denied.stdout.trim();
    assertEquals(
      line,
      `Missing permission: read access to "${dir}/config". Run again with ` +
        `--allow-fs-read=${dir}/config (besides any other --allow-fs-read flags).`,
    );
    const suggested = /Run again with --allow-fs-read=(\S+)/.exec(line)![1];
    assertEquals((await node([...own, suggested])).stdout.trim(), "ok");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
