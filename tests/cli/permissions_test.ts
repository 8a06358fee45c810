/**
 * `kopf permissions` prints the minimal flags for a kubeconfig written in the test, for
 * the in-cluster service account, and for listeners; bad configurations give one line.
 */
import {
  FRAMEWORK_ENVIRONMENT,
  FRAMEWORK_SYSTEM_INFO,
  planPermissions,
  shellQuote,
} from "../../src/cli/permissions.ts";
import { SERVICE_ACCOUNT_DIRECTORY } from "../../src/client/service_account.ts";
import { assert, assertEquals, assertRejects, assertStringIncludes } from "../assert.ts";
import { ROOT, runDeno } from "../platform/commands.ts";
import { ConfigurationError, UsageError } from "../../src/structs/errors.ts";
import { FakeCluster } from "../../src/testing/mod.ts";
import { quote } from "../doc_quotes.ts";

const MAIN_CONFIG = `
apiVersion: v1
kind: Config
current-context: dev
contexts:
  - name: dev
    context: { cluster: dev-cluster, user: dev-user, namespace: team }
  - name: other
    context: { cluster: other-cluster, user: token-user }
users:
  - name: dev-user
    user:
      client-certificate: certs/client.crt
      client-key: /etc/keys/client.key
      exec:
        apiVersion: client.authentication.k8s.io/v1
        command: ./bin/credentials.sh
clusters:
  - name: dev-cluster
    cluster:
      server: https://127.0.0.1:6443
      certificate-authority: certs/ca.crt
`;

/** A second file in KUBECONFIG: its entries only count when the first lacks them. */
const EXTRA_CONFIG = `
apiVersion: v1
kind: Config
current-context: other
clusters:
  - name: dev-cluster
    cluster: { server: https://ignored.example:1 }
  - name: other-cluster
    cluster: { server: "https://[fd00::1]", proxy-url: "http://proxy.internal:3128" }
users:
  - name: token-user
    user: { tokenFile: ../tokens/token, exec: { command: kubelogin } }
`;

async function withConfigs<T>(fn: (dir: string, kubeconfig: string) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/a`);
    await Deno.mkdir(`${dir}/b`);
    await Deno.writeTextFile(`${dir}/a/config`, MAIN_CONFIG);
    await Deno.writeTextFile(`${dir}/b/config`, EXTRA_CONFIG);
    return await fn(dir, `${dir}/a/config:${dir}/missing:${dir}/b/config`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function envOf(vars: Record<string, string>): (name: string) => string | undefined {
  return (name) => vars[name];
}

const PROXY_VARIABLES = [
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "ALL_PROXY",
  "http_proxy",
  "https_proxy",
  "all_proxy",
];

Deno.test("the flags for a merged kubeconfig name its server, files, plugin and variables", async () => {
  await withConfigs(async (dir, kubeconfig) => {
    const set = await planPermissions({ env: envOf({ KUBECONFIG: kubeconfig, HOME: dir }) });
    assertEquals(set.flags(), [
      "--allow-net=127.0.0.1:6443",
      // The default login looks for a pod's token first. Missing files in KUBECONFIG are
      // skipped, as kubectl does, but looked for; relative paths are relative to the file
      // that holds them.
      `--allow-read=${SERVICE_ACCOUNT_DIRECTORY}/token,${dir}/a/config,${dir}/missing,` +
      `${dir}/b/config,${dir}/a/certs/ca.crt,${dir}/a/certs/client.crt,/etc/keys/client.key`,
      // The port is only read in a pod; the proxy variables decide the transport of writes;
      // the yaml package checks its debug switches.
      "--allow-env=KUBECONFIG,KUBERNETES_SERVICE_HOST,HTTP_PROXY,HTTPS_PROXY,ALL_PROXY,http_proxy,https_proxy,all_proxy,LOG_TOKENS,LOG_STREAM",
      `--allow-run=${dir}/a/bin/credentials.sh`,
    ]);
  });
});

Deno.test("another context uses its own cluster, token file and plugin", async () => {
  await withConfigs(async (dir, kubeconfig) => {
    const set = await planPermissions({
      context: "other",
      env: envOf({ KUBECONFIG: kubeconfig }),
    });
    // The client connects to the server directly (no proxy-url support), so no proxy.
    assertEquals(set.targets("net"), ["[fd00::1]:443"]);
    assertEquals(set.targets("read"), [
      `${SERVICE_ACCOUNT_DIRECTORY}/token`,
      `${dir}/a/config`,
      `${dir}/missing`,
      `${dir}/b/config`,
      `${dir}/tokens/token`,
    ]);
    assertEquals(set.targets("run"), ["kubelogin"]);
  });
});

Deno.test("~/.kube/config is used without KUBECONFIG, and HOME is then read", async () => {
  await withConfigs(async (dir) => {
    await Deno.mkdir(`${dir}/.kube`);
    await Deno.copyFile(`${dir}/a/config`, `${dir}/.kube/config`);
    const set = await planPermissions({ env: envOf({ HOME: dir }) });
    assertEquals(set.targets("env"), [
      "KUBECONFIG",
      "HOME",
      "KUBERNETES_SERVICE_HOST",
      ...PROXY_VARIABLES,
      "LOG_TOKENS",
      "LOG_STREAM",
    ]);
    assert((set.targets("read") as string[]).includes(`${dir}/.kube/config`));
  });
});

Deno.test("in a pod, the service account's files and the API server from the environment", async () => {
  const set = await planPermissions({
    env: envOf({ KUBERNETES_SERVICE_HOST: "10.96.0.1", KUBERNETES_SERVICE_PORT: "443" }),
  });
  assertEquals(set.flags(), [
    "--allow-net=10.96.0.1:443",
    `--allow-read=${SERVICE_ACCOUNT_DIRECTORY}`,
    "--allow-env=KUBECONFIG,HOME,USERPROFILE,KUBERNETES_SERVICE_HOST,KUBERNETES_SERVICE_PORT,POD_ID," +
    PROXY_VARIABLES.join(","),
  ]);
  // With a home directory, the kubeconfig login looks for ~/.kube/config there too.
  const withHome = await planPermissions({
    env: envOf({ KUBERNETES_SERVICE_HOST: "10.96.0.1", HOME: "/home/op" }),
  });
  assertEquals(withHome.targets("read"), [SERVICE_ACCOUNT_DIRECTORY, "/home/op/.kube/config"]);
  assertEquals(withHome.targets("net"), ["10.96.0.1:443"]);
  const v6 = await planPermissions({
    env: envOf({ KUBERNETES_SERVICE_HOST: "fd00::1", KUBERNETES_SERVICE_PORT: "6443" }),
  });
  assertEquals(v6.targets("net"), ["[fd00::1]:6443"]);
  // Planned from outside the pod, the server's address is not known: any host.
  // Nor is the pod's home directory: this machine's kubeconfig is not the pod's.
  const planned = await planPermissions({ inCluster: true, env: envOf({ HOME: "/home/dev" }) });
  assertEquals(planned.targets("net"), true);
  assertEquals(planned.targets("read"), [SERVICE_ACCOUNT_DIRECTORY]);
});

Deno.test("listeners, the liveness and the metrics endpoints are added", async () => {
  await withConfigs(async (_dir, kubeconfig) => {
    const set = await planPermissions({
      env: envOf({ KUBECONFIG: kubeconfig }),
      listen: ["0.0.0.0:9443", "[::1]:0"],
      liveness: "http://0.0.0.0:8080/healthz",
      metrics: "0.0.0.0:9090",
    });
    assertEquals(set.targets("net"), [
      "127.0.0.1:6443",
      "0.0.0.0:9443",
      "[::1]",
      "0.0.0.0:8080",
      "0.0.0.0:9090",
    ]);
    await assertRejects(
      () => planPermissions({ env: envOf({ KUBECONFIG: kubeconfig }), listen: ["9443"] }),
      UsageError,
      "is not host:port",
    );
    await assertRejects(
      () => planPermissions({ env: envOf({ KUBECONFIG: kubeconfig }), liveness: "healthz" }),
      UsageError,
      '--liveness is not a URL: "healthz"; use e.g. http://0.0.0.0:8080/healthz.',
    );
  });
});

Deno.test("an operator module's local imports are granted, and that is enough to load it", async () => {
  await withConfigs(async (dir, kubeconfig) => {
    await Deno.mkdir(`${dir}/op`);
    await Deno.writeTextFile(
      `${dir}/op/operator.ts`,
      `import { getEnv } from "${ROOT}/src/platform/process.ts";\n` +
        `import { answer } from "./lib/answer.ts";\n` +
        "export const loaded = answer + (getEnv ? 0 : 1);\n",
    );
    await Deno.mkdir(`${dir}/op/lib`);
    await Deno.writeTextFile(`${dir}/op/lib/answer.ts`, "export const answer = 42;\n");
    const set = await planPermissions({
      env: envOf({ KUBECONFIG: kubeconfig }),
      operatorFiles: [`${dir}/op/operator.ts`],
    });
    const reads = set.targets("read") as string[];
    assert(reads.includes(`${dir}/op/operator.ts`) && reads.includes(`${dir}/op/lib/answer.ts`));
    // Modules the CLI has loaded already need no permission.
    assert(!reads.includes(`${ROOT}/src/platform/process.ts`), reads.join(", "));

    // Load it the way `kopf run` does — a dynamic import after the CLI's own graph — with
    // exactly the planned read permission.
    await Deno.writeTextFile(
      `${dir}/loader.ts`,
      `import "${ROOT}/src/cli/main.ts";\n` +
        "const m = await import(new URL(Deno.args[0], 'file:///').href);\n" +
        "console.log(m.loaded);\n",
    );
    const flag = set.flags().find((f) => f.startsWith("--allow-read="))!;
    const config = `--config=${ROOT}/deno.json`; // the import map, from outside the project
    const loaded = await runDeno([
      "run",
      "--no-prompt",
      config,
      flag,
      `${dir}/loader.ts`,
      `${dir}/op/operator.ts`,
    ]);
    assertEquals(loaded.stdout.trim(), "42", loaded.stderr);
    const denied = await runDeno([
      "run",
      "--no-prompt",
      config,
      `${dir}/loader.ts`,
      `${dir}/op/operator.ts`,
    ]);
    assert(denied.code !== 0, "without the flag, loading fails");
    assertStringIncludes(denied.stderr, `Requires read access to "${dir}/op/operator.ts"`);
  });
});

Deno.test("bad configurations fail with one line naming the file and the problem", async () => {
  await withConfigs(async (dir, kubeconfig) => {
    const env = envOf({ KUBECONFIG: kubeconfig });
    await assertRejects(
      () => planPermissions({ env, context: "nope" }),
      ConfigurationError,
      'The context "nope" is not defined in',
    );
    await Deno.writeTextFile(`${dir}/bad`, "clusters: [unclosed\n");
    await assertRejects(
      () => planPermissions({ kubeconfig: `${dir}/bad`, env }),
      ConfigurationError,
      `The kubeconfig ${dir}/bad is not valid YAML`,
    );
    await assertRejects(
      () => planPermissions({ kubeconfig: `${dir}/absent`, env }),
      ConfigurationError,
      `The kubeconfig ${dir}/absent does not exist; give an existing file.`,
    );
    await assertRejects(
      () => planPermissions({ env: envOf({ HOME: `${dir}/nowhere` }) }),
      ConfigurationError,
      "No Kubernetes configuration found",
    );
    await Deno.writeTextFile(`${dir}/noserver`, MAIN_CONFIG.replace("https://127", "127"));
    await assertRejects(
      () => planPermissions({ kubeconfig: `${dir}/noserver`, env }),
      ConfigurationError,
      'The server of dev-cluster is not a URL: "127.0.0.1:6443"; use e.g. https://host:6443.',
    );
    await Deno.writeTextFile(`${dir}/nouser`, MAIN_CONFIG.replace("user: dev-user", "user: ghost"));
    await assertRejects(
      () => planPermissions({ kubeconfig: `${dir}/nouser`, env }),
      ConfigurationError,
      'refers to the user "ghost", which is not defined in',
    );
  });
});

/** What `extract` finds in each source file under src/, as "<found> in <file>". */
async function scanSources(extract: (text: string) => string[]): Promise<string[]> {
  const found: string[] = [];
  async function scan(dir: string): Promise<void> {
    for await (const entry of Deno.readDir(dir)) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) await scan(path);
      else if (entry.name.endsWith(".ts")) {
        for (const name of extract(await Deno.readTextFile(path))) {
          found.push(`${name} in ${path.slice(ROOT.length + 1)}`);
        }
      }
    }
  }
  await scan(`${ROOT}/src`);
  return found;
}

function environmentReads(text: string): string[] {
  const pattern =
    /(?:getEnv|env\.get|Deno\.env\.has)\(\s*["']([A-Z0-9_]+)["']|process\.env\.([A-Z0-9_]+)|process\.env\[["']([A-Z0-9_]+)["']\]/g;
  return [...text.matchAll(pattern)].map((m) => m[1] ?? m[2] ?? m[3]);
}

Deno.test("every environment variable read in src/ is declared for `kopf permissions`", async () => {
  assertEquals(
    environmentReads('getEnv("A"); Deno.env.get("B"); process.env.C; process.env["D"]'),
    ["A", "B", "C", "D"],
  );
  const declared = new Set(FRAMEWORK_ENVIRONMENT.map((e) => e.name));
  const undeclared = await scanSources((text) =>
    environmentReads(text).filter((name) => !declared.has(name))
  );
  assertEquals(undeclared, [], "add them to FRAMEWORK_ENVIRONMENT in src/cli/permissions.ts");
});

const SYSTEM_APIS =
  "hostname|osRelease|osUptime|loadavg|networkInterfaces|systemMemoryInfo|uid|gid|cpus|userInfo";

function systemInfoCalls(text: string): string[] {
  const calls = [...text.matchAll(new RegExp(`\\b(?:Deno|os)\\.(${SYSTEM_APIS})\\s*\\(`, "g"))]
    .map((m) => m[1]);
  const named = /import\s*\{([^}]*)\}\s*from\s*["']node:os["']/g;
  const nodeNames: Record<string, string> = { release: "osRelease", uptime: "osUptime" };
  for (const m of text.matchAll(named)) {
    for (const name of m[1].split(",").map((n) => n.trim().split(/\s+as\s+/)[0])) {
      if (new RegExp(`^(?:${SYSTEM_APIS}|release|uptime)$`).test(name)) {
        calls.push(nodeNames[name] ?? name);
      }
    }
  }
  return calls;
}

Deno.test("every system-information API called in src/ is declared for `kopf permissions`", async () => {
  assertEquals(
    systemInfoCalls('Deno.hostname(); import { release, cpus as c } from "node:os";'),
    ["hostname", "osRelease", "cpus"],
  );
  const declared = new Set(FRAMEWORK_SYSTEM_INFO.map((u) => u.name));
  const undeclared = await scanSources((text) =>
    systemInfoCalls(text).filter((name) => !declared.has(name))
  );
  assertEquals(undeclared, [], "add them to FRAMEWORK_SYSTEM_INFO in src/cli/permissions.ts");
});

Deno.test("insecure-skip-tls-verify over HTTPS adds the variables undici reads; over HTTP none", async () => {
  await withConfigs(async (dir) => {
    const insecure = MAIN_CONFIG.replace(
      "certificate-authority: certs/ca.crt",
      "insecure-skip-tls-verify: true",
    );
    await Deno.writeTextFile(`${dir}/insecure`, insecure);
    const set = await planPermissions({ kubeconfig: `${dir}/insecure`, env: envOf({}) });
    for (const name of ["JEST_WORKER_ID", "UNDICI_NO_WASM_SIMD"]) {
      assert((set.targets("env") as string[]).includes(name), name);
    }
    assert(!(set.targets("read") as string[]).some((p) => p.endsWith("ca.crt")), "no CA file");
    // Plain HTTP never loads undici: e.g. the fake cluster's kubeconfig with --http.
    await Deno.writeTextFile(`${dir}/plain`, insecure.replace("https://", "http://"));
    const plain = await planPermissions({ kubeconfig: `${dir}/plain`, env: envOf({}) });
    assert(!(plain.targets("env") as string[]).includes("JEST_WORKER_ID"), "nothing of undici");
  });
});

Deno.test("`kopf permissions` prints the flags, explains them, and fails in one line", async () => {
  await withConfigs(async (dir, kubeconfig) => {
    const cli = ["run", "-A", `${ROOT}/src/cli/main.ts`, "permissions"];
    const plain = await runDeno(cli, { env: { KUBECONFIG: kubeconfig } });
    assertEquals(plain.code, 0, plain.stderr);
    const flags = plain.stdout.trim();
    assert(!flags.includes("\n"), "the flags are one line");
    assert(flags.startsWith("--allow-net=127.0.0.1:6443 --allow-read="), flags);
    assertStringIncludes(flags, `--allow-run=${dir}/a/bin/credentials.sh`);

    const explained = await runDeno([...cli, "--explain", "--listen", "0.0.0.0:9443"], {
      env: { KUBECONFIG: kubeconfig },
    });
    assertEquals(explained.code, 0, explained.stderr);
    assertStringIncludes(explained.stdout, "--allow-net=0.0.0.0:9443");
    assertStringIncludes(explained.stdout, "# a webhook server listening there");
    assertStringIncludes(explained.stdout, "# the exec credential plugin");

    const failed = await runDeno([...cli, "--context", "nope"], {
      env: { KUBECONFIG: kubeconfig },
    });
    assertEquals(failed.code, 1);
    const lines = failed.stderr.trim().split("\n");
    assertEquals(lines.length, 1, failed.stderr);
    assertStringIncludes(lines[0], 'kopf permissions: The context "nope" is not defined in');
  });
});

Deno.test("flags with unusual characters are quoted for the shell", () => {
  assertEquals(shellQuote("--allow-read=/a/b.c,/d"), "--allow-read=/a/b.c,/d");
  assertEquals(shellQuote("--allow-read=/my dir/x"), "'--allow-read=/my dir/x'");
  assertEquals(shellQuote("--allow-read=/it's"), "'--allow-read=/it'\\''s'");
});

/** Run `kopf run` with exactly the given flags; resolve with the output once `until` shows. */
async function runOperatorUntil(
  flags: string[],
  args: string[],
  env: Record<string, string>,
  until: string,
  onStarted: () => void,
): Promise<{ stdout: string; stderr: string; code: number }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      `--config=${ROOT}/deno.json`,
      ...flags,
      `${ROOT}/src/cli/main.ts`,
      "run",
      ...args,
    ],
    env: { NO_COLOR: "1", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const decoder = new TextDecoder();
  let stdout = "";
  let stderr = "";
  const errors = (async () => {
    for await (const chunk of child.stderr) stderr += decoder.decode(chunk, { stream: true });
  })();
  // A safety net only: the test waits for the output, never for a fixed time.
  const guard = setTimeout(() => child.kill("SIGKILL"), 60_000);
  try {
    let started = false;
    for await (const chunk of child.stdout) {
      stdout += decoder.decode(chunk, { stream: true });
      if (!started && stdout.includes("loaded")) {
        started = true;
        onStarted();
      }
      if (stdout.includes(until)) {
        child.kill("SIGTERM");
        break;
      }
    }
    const { code } = await child.status;
    await errors;
    return { stdout, stderr, code };
  } finally {
    clearTimeout(guard);
  }
}

Deno.test("`kopf run` works with exactly the flags `kopf permissions` prints, and names a missing one", async () => {
  await using cluster = await FakeCluster.start({ tls: true });
  const dir = await Deno.makeTempDir();
  try {
    const kubeconfig = await cluster.writeKubeconfig(`${dir}/kubeconfig`);
    await Deno.writeTextFile(
      `${dir}/operator.ts`,
      `import { kopf } from "${ROOT}/mod.ts";\n` +
        'console.log("loaded");\n' +
        'kopf.on.create("v1", "configmaps", { id: "report" }, ({ name }) => {\n' +
        "  console.log(`created ${name}`);\n" +
        "});\n",
    );
    const planned = await runDeno([
      "run",
      "-A",
      `${ROOT}/src/cli/main.ts`,
      "permissions",
      "operator.ts",
    ], {
      cwd: dir,
      env: { KUBECONFIG: kubeconfig },
    });
    assertEquals(planned.code, 0, planned.stderr);
    const flags = planned.stdout.trim().split(" ");
    const args = ["--standalone", "--all-namespaces", `${dir}/operator.ts`];
    const env = { KUBECONFIG: kubeconfig };

    let created = 0;
    const create = () => {
      cluster.create({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: `cm${++created}`, namespace: "default" },
      });
    };
    const result = await runOperatorUntil(flags, args, env, "created cm1", create);
    assertStringIncludes(result.stdout, "created cm1", result.stderr);
    assert(!result.stderr.includes("Requires"), result.stderr);
    assert(!result.stderr.includes("Missing permission"), result.stderr);

    // Without the kubeconfig's read permission: one line naming the flag.
    const withoutRead = flags.map((f) =>
      f.startsWith("--allow-read=") ? f.replace(`${kubeconfig},`, "") : f
    );
    const denied = await runOperatorUntil(withoutRead, args, env, "created", () => {});
    assert(denied.code !== 0, "the operator stops");
    const lines = denied.stderr.trim().split("\n").filter((l) => l.includes("Missing permission"));
    assertEquals(lines.length, 1, denied.stderr);
    assertStringIncludes(lines[0], `Run again with --allow-read=${kubeconfig}`);
    // As docs/deployment.md quotes it, the path of its example being this kubeconfig's.
    const quoted = await quote("deployment.md", "Missing permission: ");
    assertStringIncludes(lines[0], quoted.replaceAll("/home/me/.kube/config", kubeconfig));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
