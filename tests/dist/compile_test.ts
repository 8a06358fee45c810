/**
 * scripts/compile.ts: the exact `deno compile` command line (entry point, minimal baked-in
 * permissions, embedded files, baked-in arguments), and one clear line when the runtime
 * that `deno compile` embeds cannot be had.
 */
import {
  compileArgs,
  DEFAULT_ENTRY,
  DEFAULT_OUTPUT,
  explainCompileFailure,
  mergePermissionFlags,
  operatorEntrySource,
  parseCompileArgs,
} from "../../scripts/compile.ts";
import { assert, assertEquals, assertStringIncludes, assertThrows } from "../assert.ts";
import { ROOT, runDeno } from "../platform/commands.ts";

const IN_CLUSTER_FLAGS = [
  "--allow-net",
  "--allow-read=/var/run/secrets/kubernetes.io/serviceaccount",
  "--allow-env=KUBECONFIG,HOME,USERPROFILE,KUBERNETES_SERVICE_HOST,KUBERNETES_SERVICE_PORT,POD_ID," +
  "HTTP_PROXY,HTTPS_PROXY,ALL_PROXY,http_proxy,https_proxy,all_proxy",
];

Deno.test("the default compile bakes the in-cluster minimal permissions into the kopf CLI", async () => {
  const dir = await Deno.makeTempDir();
  try {
    // A DENORT_BIN that does not exist stops deno compile before any download.
    const result = await runDeno(
      ["run", "-A", `${ROOT}/scripts/compile.ts`, "--output", `${dir}/kopf`],
      { env: { DENORT_BIN: `${dir}/no-denort` } },
    );
    const printed = result.stdout.split("\n")[0];
    assertEquals(
      printed,
      [
        "deno compile --no-prompt --exclude-unused-npm",
        `--output=${dir}/kopf`,
        "--v8-flags=--max-semi-space-size=4,--heap-growing-percent=30,--efficiency-mode",
        ...IN_CLUSTER_FLAGS,
        DEFAULT_ENTRY,
      ].join(" "),
    );
    assert(!printed.includes("--allow-all") && !printed.includes(" -A "), "never -A");
    assertEquals(result.code, 1);
    assertEquals(
      result.stderr.trim(),
      `compile: DENORT_BIN points to ${dir}/no-denort, which does not exist; ` +
        `set it to the denort binary of Deno ${Deno.version.deno} for the target.`,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("without the runtime download, compile fails with one line saying what to do", async () => {
  const dir = await Deno.makeTempDir();
  // A proxy on a closed loopback port makes the download fail the same way everywhere.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const closedPort = listener.addr.port;
  listener.close();
  try {
    const result = await runDeno(
      ["run", "-A", `${ROOT}/scripts/compile.ts`, "--output", `${dir}/kopf`],
      {
        env: {
          HTTPS_PROXY: `http://127.0.0.1:${closedPort}`,
          HTTP_PROXY: `http://127.0.0.1:${closedPort}`,
        },
      },
    );
    if (result.code === 0) {
      // A denort already in Deno's cache needs no download: then the binary must work.
      const version = await new Deno.Command(`${dir}/kopf`, { args: ["--version"] }).output();
      const { version: expected } = JSON.parse(await Deno.readTextFile(`${ROOT}/deno.json`));
      assertEquals(new TextDecoder().decode(version.stdout).trim(), expected);
      return;
    }
    assertEquals(result.code, 1);
    const lines = result.stderr.trim().split("\n");
    assertEquals(lines.length, 1, result.stderr);
    assertStringIncludes(lines[0], "compile: deno compile could not fetch the Deno runtime");
    assertStringIncludes(lines[0], "set DENORT_BIN to a local denort binary");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the compile command line carries entry, target, includes, flags and baked-in args", () => {
  const parsed = parseCompileArgs([
    "--entry",
    "examples/demo.ts",
    "--output=out/demo",
    "--target",
    "aarch64-unknown-linux-gnu",
    "--include",
    "crds/",
    "--include=assets/banner.txt",
    "--allow-net=10.96.0.1:443",
    "--deny-env=AWS_SECRET_ACCESS_KEY",
    "--",
    "run",
    "--verbose",
  ]);
  assertEquals(parsed.kubeconfig, false);
  assertEquals(parsed.permissionFlags, [
    "--allow-net=10.96.0.1:443",
    "--deny-env=AWS_SECRET_ACCESS_KEY",
  ]);
  const permissions = mergePermissionFlags(IN_CLUSTER_FLAGS, parsed.permissionFlags);
  assertEquals(compileArgs({ ...parsed.options, permissions }), [
    "compile",
    "--no-prompt",
    "--exclude-unused-npm",
    "--output=out/demo",
    "--v8-flags=--max-semi-space-size=4,--heap-growing-percent=30,--efficiency-mode",
    "--target=aarch64-unknown-linux-gnu",
    "--include=crds/",
    "--include=assets/banner.txt",
    // The given --allow-net replaces the planned one; the rest stay.
    "--allow-read=/var/run/secrets/kubernetes.io/serviceaccount",
    IN_CLUSTER_FLAGS[2],
    "--allow-net=10.96.0.1:443",
    "--deny-env=AWS_SECRET_ACCESS_KEY",
    "examples/demo.ts",
    "run",
    "--verbose",
  ]);
  assertEquals(parseCompileArgs([]).options, {
    entry: DEFAULT_ENTRY,
    output: DEFAULT_OUTPUT,
    includes: [],
    args: [],
  });
  assertEquals(parseCompileArgs(["--kubeconfig"]).kubeconfig, true);
});

Deno.test("bad compile options fail with one line; --allow-all is never baked in", () => {
  assertThrows(() => parseCompileArgs(["--bogus"]), Error, 'Unknown option "--bogus"');
  assertThrows(() => parseCompileArgs(["--output"]), Error, "--output needs a value");
  assertThrows(
    () => compileArgs({ ...parseCompileArgs([]).options, permissions: ["--allow-all"] }),
    Error,
    "Refusing to bake --allow-all",
  );
});

Deno.test("compile failures are summarised from deno's error report", () => {
  const download = [
    "Compile src/cli/main.ts to dist/kopf",
    "error: Writing deno compile executable to temporary file 'dist/kopf.tmp-1'",
    "",
    "Caused by:",
    "    0: Setting up base binary.",
    "    1: error sending request for url (https://dl.example/denort-x86_64-unknown-linux-gnu.zip): client error (Connect)",
    "    2: dns error",
    "    3: failed to lookup address information: Name or service not known",
    "",
    "Stack backtrace:",
    "   0: <unknown>",
  ].join("\n");
  assertEquals(
    explainCompileFailure(download, "2.9.6"),
    "deno compile could not fetch the Deno runtime it embeds (denort 2.9.6 from " +
      "https://dl.example/denort-x86_64-unknown-linux-gnu.zip): failed to lookup address " +
      "information: Name or service not known. Allow that download, or set DENORT_BIN to a " +
      "local denort binary of the same version.",
  );
  const typeError = "TS2322 [ERROR]: Type 'string' is not assignable\nerror: Type checking failed.";
  assertEquals(
    explainCompileFailure(typeError, "2.9.6"),
    "deno compile failed: Type checking failed.",
  );
});

Deno.test("an operator binary compiles the operator's modules in front of `kopf run`", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/op.ts`, 'console.log("operator loaded");\n');
    const result = await runDeno(
      ["run", "-A", `${ROOT}/scripts/compile.ts`, "--operator", `${dir}/op.ts`, "-o", `${dir}/op`],
      { env: { DENORT_BIN: `${dir}/no-denort` } },
    );
    const entry = `${dir}/op.entry.ts`;
    assertEquals(result.stdout.split("\n")[0].split(" ").slice(-1)[0], entry);
    assertEquals(result.code, 1, "no denort here");
    assertEquals(
      await Deno.readTextFile(entry),
      operatorEntrySource([`file://${dir}/op.ts`], `file://${ROOT}/src/cli/main.ts`),
    );
    // What the binary would run, run by Deno with exactly the baked-in permissions: the
    // operator module loads (compiled in, it needs no read access) and the CLI starts.
    const run = await runDeno([
      "run",
      `--config=${ROOT}/deno.json`,
      "--no-prompt",
      ...IN_CLUSTER_FLAGS,
      entry,
      "--help",
    ]);
    assertEquals(run.stdout.split("\n")[0], "operator loaded", run.stderr);
    assert(!run.stderr.includes("Requires"), run.stderr);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("operator modules and a custom entry exclude each other", () => {
  const parsed = parseCompileArgs(["--operator", "a.ts", "--operator=b.ts"]);
  assertEquals(parsed.operators, ["a.ts", "b.ts"]);
  assertThrows(
    () => parseCompileArgs(["--entry", "x.ts", "--operator", "a.ts"]),
    Error,
    "Use either --entry or --operator",
  );
  const source = operatorEntrySource(["file:///ops/a.ts", "file:///ops/b.ts"], "file:///k/main.ts");
  assertEquals(source.split("\n").slice(1), [
    'import "file:///ops/a.ts";',
    'import "file:///ops/b.ts";',
    'import { main } from "file:///k/main.ts";',
    "",
    'await main(["run", ...Deno.args]);',
    "",
  ]);
});
