/**
 * Kubeconfig logins: merging of KUBECONFIG files as kubectl does, contexts, relative
 * paths, embedded data, exec credential plugins with expiry, the service account, and
 * one clear line for every broken kubeconfig.
 */
import { assert, assertEquals, assertRejects } from "../assert.ts";
import { LoginError } from "../../src/structs/errors.ts";
import { loginWithKubeconfig } from "../../src/client/kubeconfig.ts";
import { loginWithServiceAccount } from "../../src/client/service_account.ts";
import { ROOT, runDeno } from "../platform/commands.ts";
import { Vault } from "../../src/client/vault.ts";
import { wallClockAt } from "../clocks.ts";

const PROBE = `${ROOT}/tests/client/fixtures/login_probe.ts`;
let denoDir: string | undefined;

/** What a login run in a process of its own produced. */
interface Elsewhere {
  info?: Record<string, unknown> | null;
  error?: string;
  message?: string;
  permission?: string;
}

/**
 * Run a login in a child process with extra environment variables: parallel test modules
 * share this process's environment, so it is never changed here.
 */
async function loginElsewhere(
  which: "kubeconfig" | "serviceAccount" | "defaults" | "client",
  options: Record<string, unknown>,
  env: Record<string, string>,
  permissions: string[] = ["-A"],
): Promise<Elsewhere> {
  // The child keeps this Deno's cache even when HOME is changed for it.
  denoDir ??= JSON.parse((await runDeno(["info", "--json"])).stdout).denoDir as string;
  const result = await runDeno(["run", ...permissions, PROBE, which, JSON.stringify(options)], {
    cwd: ROOT,
    env: { DENO_DIR: denoDir, ...env },
  });
  assertEquals(result.code, 0, result.stderr);
  return JSON.parse(result.stdout.trim().split("\n").pop()!);
}

async function withDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "kopf-kubeconfig-" });
  try {
    return await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const b64 = (text: string) => btoa(text);

/** The message of the LoginError that `fn` raises; it must be a single line. */
async function loginErrorOf(fn: () => Promise<unknown>): Promise<string> {
  const error = await assertRejects(fn, LoginError);
  assert(!error.message.includes("\n"), `one line expected: ${error.message}`);
  return error.message;
}

Deno.test("KUBECONFIG files merge like kubectl: first definition and first current-context win", async () => {
  await withDir(async (dir) => {
    await Deno.writeTextFile(
      `${dir}/first.yaml`,
      `
apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: main
  cluster:
    server: https://first.example:6443
    certificate-authority: certs/ca.crt
contexts:
- name: dev
  context: { cluster: main, user: alice, namespace: team-a }
`,
    );
    await Deno.writeTextFile(
      `${dir}/second.yaml`,
      `
current-context: prod
clusters:
- name: main
  cluster: { server: https://second.example }
contexts:
- name: dev
  context: { cluster: main, user: nobody }
users:
- name: alice
  user:
    token: alice-token
`,
    );
    const { info } = await loginElsewhere("kubeconfig", {}, {
      KUBECONFIG: `${dir}/first.yaml:${dir}/missing.yaml:${dir}/second.yaml`,
    });
    assertEquals(info, {
      server: "https://first.example:6443",
      caPath: `${dir}/certs/ca.crt`, // relative to the file that defines the cluster
      token: "alice-token",
      defaultNamespace: "team-a",
      source: `the context "dev" (user "alice") of ${dir}/first.yaml`,
    });
  });
});

Deno.test("an explicit context, embedded data, insecure mode, token files and basic auth", async () => {
  await withDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/token`, "file-token\n");
    await Deno.writeTextFile(
      `${dir}/config`,
      `
current-context: one
clusters:
- name: c
  cluster:
    server: https://c.example
    certificate-authority-data: ${b64("CA PEM")}
- name: loose
  cluster: { server: https://loose.example, insecure-skip-tls-verify: true }
users:
- name: cert-user
  user:
    client-certificate-data: ${b64("CERT PEM")}
    client-key-data: ${b64("KEY PEM")}
- name: file-user
  user: { tokenFile: token }
- name: basic-user
  user: { username: bob, password: secret }
contexts:
- { name: one, context: { cluster: c, user: cert-user } }
- { name: two, context: { cluster: loose, user: file-user } }
- { name: three, context: { cluster: loose, user: basic-user } }
- { name: anonymous, context: { cluster: c } }
`,
    );
    const kubeconfig = `${dir}/config`;
    assertEquals(await loginWithKubeconfig({ kubeconfig }), {
      server: "https://c.example",
      caData: "CA PEM",
      certificateData: "CERT PEM",
      privateKeyData: "KEY PEM",
      source: `the context "one" (user "cert-user") of ${dir}/config`,
    });
    assertEquals(await loginWithKubeconfig({ kubeconfig, context: "two" }), {
      server: "https://loose.example",
      insecure: true,
      token: "file-token",
      tokenPath: `${dir}/token`,
      source: `the context "two" (user "file-user") of ${dir}/config`,
    });
    assertEquals(await loginWithKubeconfig({ kubeconfig, context: "three" }), {
      server: "https://loose.example",
      insecure: true,
      username: "bob",
      password: "secret",
      source: `the context "three" (user "basic-user") of ${dir}/config`,
    });
    assertEquals(await loginWithKubeconfig({ kubeconfig, context: "anonymous" }), {
      server: "https://c.example",
      caData: "CA PEM",
      source: `the context "anonymous" of ${dir}/config`,
    });
  });
});

Deno.test("an exec credential plugin provides a token with its expiry", async () => {
  await withDir(async (dir) => {
    // The plugin echoes what it was given, so the test sees args, env and exec info.
    await Deno.writeTextFile(
      `${dir}/plugin.sh`,
      `#!/bin/sh
cat <<EOF
{"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential",
 "status": {"token": "exec-$1-$PLUGIN_MODE", "expirationTimestamp": "2031-02-03T04:05:06Z"}}
EOF
echo "$KUBERNETES_EXEC_INFO" > "${dir}/exec-info.json"
`,
    );
    await Deno.chmod(`${dir}/plugin.sh`, 0o755);
    await Deno.writeTextFile(
      `${dir}/config`,
      `
current-context: ctx
clusters: [{ name: c, cluster: { server: https://exec.example } }]
contexts: [{ name: ctx, context: { cluster: c, user: u } }]
users:
- name: u
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: ./plugin.sh
      args: [arg1]
      env: [{ name: PLUGIN_MODE, value: fast }]
      interactiveMode: Never
      provideClusterInfo: true
`,
    );
    const info = await loginWithKubeconfig({ kubeconfig: `${dir}/config` });
    assertEquals(info, {
      server: "https://exec.example",
      source: `the context "ctx" (user "u") of ${dir}/config`,
      token: "exec-arg1-fast",
      expiration: new Date("2031-02-03T04:05:06Z"),
    });
    const execInfo = JSON.parse(await Deno.readTextFile(`${dir}/exec-info.json`));
    assertEquals(execInfo, {
      apiVersion: "client.authentication.k8s.io/v1",
      kind: "ExecCredential",
      spec: { interactive: false, cluster: { server: "https://exec.example" } },
    });
  });
});

Deno.test("a failing or misbehaving exec plugin gives one clear line", async () => {
  await withDir(async (dir) => {
    await Deno.writeTextFile(
      `${dir}/fail.sh`,
      "#!/bin/sh\necho 'token expired, run sso login' >&2\nexit 3\n",
    );
    await Deno.writeTextFile(`${dir}/garbage.sh`, "#!/bin/sh\necho not-json\n");
    await Deno.chmod(`${dir}/fail.sh`, 0o755);
    await Deno.chmod(`${dir}/garbage.sh`, 0o755);
    const config = (command: string, apiVersion = "client.authentication.k8s.io/v1beta1") => `
current-context: ctx
clusters: [{ name: c, cluster: { server: https://exec.example } }]
contexts: [{ name: ctx, context: { cluster: c, user: u } }]
users: [{ name: u, user: { exec: { apiVersion: ${apiVersion}, command: ${command} } } }]
`;
    const file = `${dir}/config`;
    await Deno.writeTextFile(file, config(`${dir}/fail.sh`));
    assertEquals(
      await loginErrorOf(() => loginWithKubeconfig({ kubeconfig: file })),
      `The exec plugin ${dir}/fail.sh of user "u" in ${file} failed with exit code 3: token expired, run sso login`,
    );
    await Deno.writeTextFile(file, config(`${dir}/garbage.sh`));
    assertEquals(
      await loginErrorOf(() => loginWithKubeconfig({ kubeconfig: file })),
      `The output of the exec plugin ${dir}/garbage.sh of user "u" in ${file} is not JSON; it must print an ExecCredential.`,
    );
    await Deno.writeTextFile(file, config("kopf-no-such-plugin-binary"));
    const missing = await loginErrorOf(() => loginWithKubeconfig({ kubeconfig: file }));
    assert(missing.startsWith(`The exec plugin of user "u" in ${file} cannot run:`), missing);
    await Deno.writeTextFile(file, config("x", "client.authentication.k8s.io/v1alpha1"));
    assertEquals(
      await loginErrorOf(() => loginWithKubeconfig({ kubeconfig: file })),
      `The exec plugin of user "u" in ${file} has apiVersion "client.authentication.k8s.io/v1alpha1"; ` +
        "use client.authentication.k8s.io/v1 or client.authentication.k8s.io/v1beta1.",
    );
  });
});

Deno.test("broken kubeconfigs give one line naming the file and the problem", async () => {
  await withDir(async (dir) => {
    const file = `${dir}/config`;
    await Deno.writeTextFile(file, "clusters: [\n  - name: x\n  bad: : :\n");
    const yaml = await loginErrorOf(() => loginWithKubeconfig({ kubeconfig: file }));
    assert(yaml.startsWith(`The kubeconfig ${file} is not valid YAML: `), yaml);

    assertEquals(
      await loginErrorOf(() => loginWithKubeconfig({ kubeconfig: `${dir}/nope` })),
      `The kubeconfig ${dir}/nope does not exist; give an existing file.`,
    );

    await Deno.writeTextFile(
      file,
      `
current-context: ghost
clusters: [{ name: c, cluster: { server: https://x.example } }]
contexts:
- { name: ctx, context: { cluster: c, user: missing-user } }
- { name: no-cluster, context: { cluster: gone, user: missing-user } }
`,
    );
    assertEquals(
      await loginErrorOf(() => loginWithKubeconfig({ kubeconfig: file })),
      `The context "ghost" is not defined in the kubeconfig ${file}.`,
    );
    assertEquals(
      await loginErrorOf(() => loginWithKubeconfig({ kubeconfig: file, context: "ctx" })),
      `The context "ctx" in ${file} refers to the user "missing-user", which is not defined in the kubeconfig ${file}.`,
    );
    assertEquals(
      await loginErrorOf(() => loginWithKubeconfig({ kubeconfig: file, context: "no-cluster" })),
      `The context "no-cluster" in ${file} refers to the cluster "gone", which is not defined in the kubeconfig ${file}.`,
    );

    await Deno.writeTextFile(file, "clusters: []\n");
    assertEquals(
      await loginErrorOf(() => loginWithKubeconfig({ kubeconfig: file })),
      `No current-context is set in the kubeconfig ${file}; run "kubectl config use-context NAME" or pass a context.`,
    );

    assertEquals(await loginElsewhere("kubeconfig", {}, { KUBECONFIG: `${dir}/a:${dir}/b` }), {
      error: "LoginError",
      message:
        `The kubeconfig ${dir}/a, ${dir}/b (from KUBECONFIG) does not exist; fix KUBECONFIG or unset it to use ~/.kube/config.`,
    });
  });
});

Deno.test("no kubeconfig at all means no credentials from it, not an error", async () => {
  await withDir(async (dir) => {
    const result = await loginElsewhere("kubeconfig", {}, { KUBECONFIG: "", HOME: dir });
    assertEquals(result, { info: null });
  });
});

Deno.test("the service account login reads the token, CA and namespace; the default login prefers it", async () => {
  await withDir(async (dir) => {
    assertEquals(await loginWithServiceAccount({ directory: dir }), undefined);
    await Deno.writeTextFile(`${dir}/token`, "sa-token\n");
    await Deno.writeTextFile(`${dir}/ca.crt`, "CA");
    await Deno.writeTextFile(`${dir}/namespace`, "operators\n");
    const expected = {
      server: "https://10.0.0.1:6443",
      token: "sa-token",
      tokenPath: `${dir}/token`,
      caPath: `${dir}/ca.crt`,
      defaultNamespace: "operators",
      source: `the pod's service account (${dir}/token)`,
    };
    const inPod = { KUBERNETES_SERVICE_HOST: "10.0.0.1", KUBERNETES_SERVICE_PORT: "6443" };
    assertEquals(await loginElsewhere("serviceAccount", { directory: dir }, inPod), {
      info: expected,
    });
    const both = { directory: dir, kubeconfig: `${dir}/none` };
    assertEquals(await loginElsewhere("defaults", both, inPod), { info: expected });
    const ipv6 = { KUBERNETES_SERVICE_HOST: "fd00::1", KUBERNETES_SERVICE_PORT: "443" };
    const { info } = await loginElsewhere("serviceAccount", { directory: dir }, ipv6);
    assertEquals(info?.server, "https://[fd00::1]:443");
  });
});

Deno.test("exec credentials expire in the vault, and the next call runs the plugin again", async () => {
  await withDir(async (dir) => {
    // Each run prints a new token and a later expiry: run-1 until 2031, run-2 until 2032.
    await Deno.writeTextFile(
      `${dir}/plugin.sh`,
      `#!/bin/sh
n=$(( $(cat "${dir}/runs" 2>/dev/null || echo 0) + 1 ))
echo $n > "${dir}/runs"
echo '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",'\\
'"status":{"token":"run-'$n'","expirationTimestamp":"203'$n'-01-01T00:00:00Z"}}'
`,
    );
    await Deno.chmod(`${dir}/plugin.sh`, 0o755);
    await Deno.writeTextFile(
      `${dir}/config`,
      `
current-context: ctx
clusters: [{ name: c, cluster: { server: https://exec.example } }]
contexts: [{ name: ctx, context: { cluster: c, user: u } }]
users: [{ name: u, user: { exec: { apiVersion: client.authentication.k8s.io/v1, command: ./plugin.sh, interactiveMode: Never } } }]
`,
    );
    let now = Date.parse("2030-12-31T23:59:00Z");
    const vault = new Vault({
      clock: wallClockAt(() => now),
      relogin: async () => ({
        kubeconfig: await loginWithKubeconfig({ kubeconfig: `${dir}/config` }),
      }),
    });
    assertEquals((await vault.select()).info.token, "run-1");
    assertEquals((await vault.select()).info.token, "run-1"); // still valid: not re-run
    now = Date.parse("2031-01-01T00:00:00Z");
    assertEquals((await vault.select()).info.token, "run-2");
    assertEquals((await Deno.readTextFile(`${dir}/runs`)).trim(), "2");
  });
});

Deno.test("a missing --allow-env while reading a kubeconfig is reported as the missing flag, not as bad YAML", async () => {
  await withDir(async (dir) => {
    const file = `${dir}/config`;
    await Deno.writeTextFile(
      file,
      `
current-context: dev
clusters: [{name: main, cluster: {server: "https://127.0.0.1:6443"}}]
users: [{name: me, user: {token: abc}}]
contexts: [{name: dev, context: {cluster: main, user: me}}]
`,
    );
    const result = await loginElsewhere("kubeconfig", { kubeconfig: file }, {}, [
      `--allow-read=${dir}`,
    ]);
    assertEquals(result.info, undefined);
    assert(!result.message?.includes("YAML"), `not a YAML problem: ${result.message}`);
    assert(result.error !== "LoginError", `not wrapped in a LoginError: ${result.message}`);
    assert(
      result.permission?.startsWith("Missing permission: env access to ") &&
        result.permission.includes("Run again with --allow-env="),
      `one line naming the flag: ${result.permission}`,
    );
  });
});

/** A one-cluster kubeconfig with the given cluster fields (YAML text) and user fields. */
function kubeconfigWith(clusterFields: string, userFields = "token: t"): string {
  return `
current-context: ctx
clusters:
- name: c
  cluster:
    server: https://x.example
    ${clusterFields}
users:
- name: u
  user:
    ${userFields}
contexts:
- { name: ctx, context: { cluster: c, user: u } }
`;
}

Deno.test("insecure-skip-tls-verify is read as kubectl reads it: YAML 1.1 booleans, nothing else", async () => {
  await withDir(async (dir) => {
    const file = `${dir}/config`;
    // kubectl v1.32 reads these so (sigs.k8s.io/yaml over a YAML 1.1 parser, into a Go bool).
    const cases: [string, boolean][] = [
      ["no", false],
      ["off", false],
      ["n", false],
      ["No", false],
      ["OFF", false],
      ["false", false],
      ["~", false],
      ["yes", true],
      ["y", true],
      ["On", true],
      ["TRUE", true],
      ["true", true],
    ];
    for (const [value, insecure] of cases) {
      await Deno.writeTextFile(file, kubeconfigWith(`insecure-skip-tls-verify: ${value}`));
      const info = await loginWithKubeconfig({ kubeconfig: file });
      assertEquals(info?.insecure ?? false, insecure, value);
    }
    // kubectl refuses the file for anything else; so does the login, naming where and what.
    for (
      const [value, shown] of [
        ['"false"', '"false" (a string)'],
        ['"0"', '"0" (a string)'],
        [
          "0",
          "0 (a number)",
        ],
        ["nope", '"nope" (a string)'],
        ['"true"', '"true" (a string)'],
      ]
    ) {
      await Deno.writeTextFile(file, kubeconfigWith(`insecure-skip-tls-verify: ${value}`));
      assertEquals(
        await loginErrorOf(() => loginWithKubeconfig({ kubeconfig: file })),
        `The kubeconfig ${file} is invalid: the cluster "c" has insecure-skip-tls-verify set to ` +
          `${shown}; it must be true or false, unquoted, as kubectl reads it.`,
      );
    }
  });
});

Deno.test("other typed fields: strings must be strings, exec flags booleans; secrets are never shown", async () => {
  await withDir(async (dir) => {
    const file = `${dir}/config`;
    await Deno.writeTextFile(file, kubeconfigWith("", "token: 123456"));
    assertEquals(
      await loginErrorOf(() => loginWithKubeconfig({ kubeconfig: file })),
      `The kubeconfig ${file} is invalid: the user "u" has token set to a number; ` +
        `it must be a string (quote it), as kubectl reads it.`,
    );
    await Deno.writeTextFile(file, kubeconfigWith("", "password: 0755\n    username: admin"));
    const password = await loginErrorOf(() => loginWithKubeconfig({ kubeconfig: file }));
    assert(password.includes("has password set to a number"), password);
    assert(!password.includes("755") && !password.includes("493"), "no secret in the message");
    await Deno.writeTextFile(
      file,
      kubeconfigWith(
        "",
        'exec: { apiVersion: client.authentication.k8s.io/v1, command: x, provideClusterInfo: "yes" }',
      ),
    );
    assertEquals(
      await loginErrorOf(() => loginWithKubeconfig({ kubeconfig: file })),
      `The kubeconfig ${file} is invalid: the user "u" has exec.provideClusterInfo set to ` +
        `"yes" (a string); it must be true or false, unquoted, as kubectl reads it.`,
    );
    await Deno.writeTextFile(
      file,
      kubeconfigWith("", "exec: { apiVersion: v1, command: x, args: [1, on] }"),
    );
    assert(
      (await loginErrorOf(() => loginWithKubeconfig({ kubeconfig: file }))).includes(
        "exec.args set to a number",
      ),
    );
    await Deno.writeTextFile(file, kubeconfigWith("disable-compression: 1"));
    assert(
      (await loginErrorOf(() => loginWithKubeconfig({ kubeconfig: file }))).includes(
        "disable-compression set to 1 (a number)",
      ),
    );
    // A namespace that YAML 1.1 reads as a boolean is no namespace for kubectl either.
    await Deno.writeTextFile(
      file,
      kubeconfigWith("").replace("user: u }", "user: u, namespace: no }"),
    );
    assertEquals(
      await loginErrorOf(() => loginWithKubeconfig({ kubeconfig: file })),
      `The kubeconfig ${file} is invalid: the context "ctx" has namespace set to a boolean; ` +
        `it must be a string (quote it), as kubectl reads it.`,
    );
    // Timestamps stay strings, as kubectl keeps them; unknown fields are ignored.
    await Deno.writeTextFile(
      file,
      kubeconfigWith(
        "bogus: 1",
        "auth-provider: { name: oidc, config: { id-token: tok, expiry: 2031-01-01T00:00:00Z } }",
      ),
    );
    const info = await loginWithKubeconfig({ kubeconfig: file });
    assertEquals(info?.token, "tok");
    assertEquals(info?.expiration?.toISOString(), "2031-01-01T00:00:00.000Z");
  });
});
