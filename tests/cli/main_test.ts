/**
 * The `kopf` command line as a user runs it: every subcommand answers a wrong command line
 * the same way (its message, a hint at its help, exit code 2), failures exit with 1, and
 * `kopf --version` is the package's version.
 */
import { runKopf as kopf } from "./kopf_command.ts";
import { assertEquals, assertStringIncludes } from "../assert.ts";

const ROOT = new URL("../../", import.meta.url);

Deno.test("every subcommand answers a usage error with its message, its help hint and exit code 2", async () => {
  const cases: [string[], string, string][] = [
    [["run", "--bogus"], "error: unknown option '--bogus'", "kopf run"],
    [["run", "-A", "-n", "default", "x.ts"], "either -n/--namespace or -A", "kopf run"],
    [["run", "--priority", "high", "x.ts"], "the priority must be an integer", "kopf run"],
    [["run", "-v", "-d", "x.ts"], "Use only one of --verbose, --debug and --quiet.", "kopf run"],
    [["run", "-q", "-v", "x.ts"], "Use only one of --verbose, --debug and --quiet.", "kopf run"],
    [["freeze", "-A"], "kopf freeze needs --lifetime", "kopf freeze"],
    [["freeze", "-t", "0"], "the lifetime must be a whole number of seconds", "kopf freeze"],
    [["resume", "--bogus"], "error: unknown option '--bogus'", "kopf resume"],
    [["permissions", "--bogus"], "error: unknown option '--bogus'", "kopf permissions"],
    [
      ["permissions", "--in-cluster", "--listen", "nowhere"],
      "is not host:port",
      "kopf permissions",
    ],
    [["fake-cluster", "--port", "http"], "the port must be a number", "kopf fake-cluster"],
    [
      ["fake-cluster", "--event-ttl", "1 hour"],
      "option '--event-ttl <duration>' argument '1 hour' is invalid. the Event TTL must be",
      "kopf fake-cluster",
    ],
    [
      ["fake-cluster", "--client-certificates", "--http"],
      "--client-certificates needs HTTPS",
      "kopf fake-cluster",
    ],
    [
      ["fake-cluster", "--http", "--tls"],
      "--http and --tls exclude each other",
      "kopf fake-cluster",
    ],
    [["types"], "error: missing required argument 'files'", "kopf types"],
    [["types", "absent.yaml"], "Cannot read absent.yaml: no such file", "kopf types"],
    [["types", "examples/obj.yaml"], "holds no CustomResourceDefinition", "kopf types"],
    [
      ["manifests", "examples/01-minimal/example.ts"],
      "Say what the operator serves",
      "kopf manifests",
    ],
    [
      ["manifests", "-n", "default", "examples/01-minimal/example.ts"],
      "serve kopfexamples, which is neither a built-in resource nor in a --crd file",
      "kopf manifests",
    ],
    [
      [
        "manifests",
        "-A",
        "--crd",
        "examples/crd.yaml",
        "--rule",
        "pods",
        "examples/01-minimal/example.ts",
      ],
      "is not RESOURCE:VERBS",
      "kopf manifests",
    ],
    [
      [
        "manifests",
        "-A",
        "--crd",
        "examples/crd.yaml",
        "--rule",
        "widgets:get",
        "examples/01-minimal/example.ts",
      ],
      "widgets is neither a built-in resource nor in a --crd file",
      "kopf manifests",
    ],
    [
      ["manifests", "-A", "--crd", "absent.yaml", "x.ts"],
      "Cannot load x.ts: no such file",
      "kopf manifests",
    ],
    [
      ["manifests", "-A", "--crd", "absent.yaml", "examples/01-minimal/example.ts"],
      "--crd absent.yaml: no such file",
      "kopf manifests",
    ],
    [
      ["manifests", "-A", "--metrics", "http", "x.ts"],
      "it needs a port number",
      "kopf manifests",
    ],
    [["bogus"], "error: unknown command 'bogus'", "kopf"],
  ];
  const results = await Promise.all(cases.map(([args]) => kopf(args)));
  cases.forEach(([args, message, command], i) => {
    const { code, stdout, stderr } = results[i];
    const lines = stderr.trimEnd().split("\n");
    assertEquals([code, lines.length, stdout], [2, 2, ""], `kopf ${args.join(" ")}:\n${stderr}`);
    assertStringIncludes(lines[0], message);
    assertEquals(lines[1], `See '${command} --help'.`);
  });
});

Deno.test("failures that are not about the command line exit with 1 in one line, no hint", async () => {
  const [types, permissions] = await Promise.all([
    kopf(["types", "-"], "kind: CustomResourceDefinition\napiVersion: apiextensions.k8s.io/v1\n"),
    kopf(["permissions"]),
  ]);
  assertEquals(types.code, 1, types.stderr);
  assertEquals(
    types.stderr,
    "kopf types: the standard input: the CRD has no spec.names.kind; give a complete CRD, " +
      "e.g. from kubectl get crd NAME -o yaml.\n",
  );
  assertEquals(permissions.code, 1, permissions.stderr);
  assertEquals(permissions.stderr.trimEnd().split("\n").length, 1, permissions.stderr);
  assertStringIncludes(permissions.stderr, "kopf permissions: No Kubernetes configuration found");
});

Deno.test("kopf --version prints the version of deno.json; kopf types reads the standard input", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT)));
  const crd = await Deno.readTextFile(new URL("examples/crd.yaml", ROOT));
  const [version, types] = await Promise.all([kopf(["--version"]), kopf(["types", "-"], crd)]);
  assertEquals(version, { code: 0, stdout: `${config.version}\n`, stderr: "" });
  assertEquals(types.code, 0, types.stderr);
  assertStringIncludes(types.stdout, "export interface KopfExampleV1 {");
  assertEquals(types.stderr, "");
});
