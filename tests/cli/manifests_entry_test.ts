/**
 * The image's program without an image: the entry and the permission flags that the
 * `kopf manifests --dockerfile` recipe compiles in, run by `deno run --no-prompt` with
 * exactly those flags, as a pod would run it — the service account's files mounted at
 * Kubernetes' path (in a mount namespace of its own, so only as root with `unshare`),
 * the API server from `KUBERNETES_SERVICE_HOST`/`_PORT`, the Deployment's arguments and
 * variables (Deno's root store emptied: the cluster's CA alone trusted). It logs in,
 * handles an object under the generated RBAC, and stops on SIGTERM with 0.
 * (Building the image itself needs a Docker engine, and `deno compile` a download: not
 * here.)
 */
import { assert, assertEquals } from "../assert.ts";
import type { RawBody } from "../../mod.ts";
import { FakeCluster } from "../../src/testing/mod.ts";
import { manifestsOf } from "../../src/cli/manifests.ts";
import { ENTRY_FILE } from "../../src/commands/dockerfile_recipe.ts";
import { run } from "../platform/commands.ts";
import { parseAllDocuments } from "yaml";
import {
  deployExample,
  exampleFile,
  forbiddenRequests,
  KIND,
  manifest,
  NAME,
  settled,
} from "../examples/helpers.ts";

const ROOT = new URL("../../", import.meta.url);
const MAIN = new URL("src/cli/main.ts", ROOT).href;
const SA_PATH = "/var/run/secrets/kubernetes.io/serviceaccount";
const isRoot = Deno.uid?.() === 0;
const hasUnshare = isRoot &&
  await run("unshare", ["-m", "true"]).then((r) => r.code === 0, () => false);

Deno.test({
  name: "the Dockerfile's entry runs with its baked-in permissions as a pod would, and handles",
  ignore: !hasUnshare,
  fn: async () => {
    await using cluster = await FakeCluster.start({ rbac: true, tls: true });
    cluster.create(await manifest("crd.yaml"));
    const { token } = await deployExample("01-minimal", cluster);

    // The build context is this checkout: the recipe names the operator's file relative
    // to it, and the entry it writes imports that file and the command line from here.
    const example = "examples/01-minimal/example.ts";
    const entryFile = `.${ENTRY_FILE}.${crypto.randomUUID()}.ts`;
    const serviceAccount = await Deno.makeTempDir({ prefix: "kopf-sa-" });
    try {
      const recipe = await manifestsOf([example], {
        namespace: ["default"],
        crd: [new URL("examples/crd.yaml", ROOT).pathname],
        dockerfile: true,
        cli: MAIN,
      });
      const entry = /RUN printf '%s\\n' \\\n([\s\S]*?)\n\s+> /.exec(recipe)![1]
        .split("\n").map((line) => line.trim().replace(/ \\$/, "").replace(/^'|'$/g, ""));
      await Deno.writeTextFile(new URL(entryFile, ROOT), entry.join("\n") + "\n");
      const flags = recipe.split("\n").map((line) => line.trim().replace(/ \\$/, ""))
        .filter((line) => /^--(allow|v8-flags)/.test(line) || line.includes("--v8-flags="))
        .flatMap((line) => line.split(" ").filter((part) => part.startsWith("--")))
        .filter((flag) => flag !== "--no-prompt" && !flag.startsWith("--output"));
      assert(flags.some((f) => f.startsWith("--allow-read=")), recipe);

      // The pod's service account, as the kubelet mounts it.
      await Deno.writeTextFile(`${serviceAccount}/token`, token);
      await Deno.writeTextFile(`${serviceAccount}/ca.crt`, cluster.connectionInfo.caData!);
      await Deno.writeTextFile(`${serviceAccount}/namespace`, "default");

      const yaml = await manifestsOf([exampleFile("01-minimal")], {
        namespace: ["default"],
        crd: [new URL("examples/crd.yaml", ROOT).pathname],
        name: "example-01-minimal",
      });
      const deployment = parseAllDocuments(yaml).map((d) => d.toJS() as RawBody)
        .find((o) => o.kind === "Deployment")!;
      // deno-lint-ignore no-explicit-any
      const container = (deployment.spec as any).template.spec.containers[0];
      const args = (container.args as string[])
        .map((arg) => arg.replace("0.0.0.0:8080", "127.0.0.1:0"));
      // The container's variables of plain values: Deno's root store emptied, so that the
      // cluster's CA alone is trusted (POD_ID, from the pod's name, is given below).
      const podEnv = Object.fromEntries(
        (container.env as { name: string; value?: string }[])
          .filter((variable) => variable.value !== undefined)
          .map((variable) => [variable.name, variable.value!]),
      );
      assertEquals(podEnv, { DENO_TLS_CA_STORE: "" });
      const script = [
        "set -e",
        "mount -t tmpfs tmpfs /run",
        `mkdir -p ${SA_PATH}`,
        `mount --bind "$SA" ${SA_PATH}`,
        `exec "$DENO" run --no-prompt ${flags.join(" ")} ${entryFile} "$@"`,
      ].join("\n");
      const server = new URL(cluster.connectionInfo.server);
      const operator = new Deno.Command("unshare", {
        args: ["-m", "sh", "-c", script, "sh", ...args],
        cwd: new URL(".", ROOT).pathname,
        clearEnv: true,
        env: {
          ...podEnv,
          SA: serviceAccount,
          DENO: Deno.execPath(),
          PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
          DENO_DIR: Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME")}/.cache/deno`,
          KUBERNETES_SERVICE_HOST: server.hostname,
          KUBERNETES_SERVICE_PORT: server.port,
          POD_ID: "example-01-minimal-abc12",
          NO_COLOR: "1",
        },
        stdout: "null",
        stderr: "piped",
      }).spawn();
      const stderr = new Response(operator.stderr).text();
      try {
        cluster.create(await manifest("obj.yaml"));
        const exited = operator.status.then(({ code }) => {
          throw new Error(`The operator exited early with ${code}.`);
        });
        await Promise.race([cluster.waitFor(KIND, NAME, settled, { timeout: 60 }), exited]);
      } catch (error) {
        try {
          operator.kill("SIGKILL");
        } catch {
          // exited already
        }
        throw new Error(`${error}\n${await stderr}`);
      }
      operator.kill("SIGTERM");
      const { code } = await operator.status;
      const output = await stderr;
      assertEquals(code, 0, output);
      assert(!/NotCapable|Requires .* access|PermissionDenied/.test(output), output);
      assertEquals(forbiddenRequests(cluster), [], output);
    } finally {
      await Deno.remove(new URL(entryFile, ROOT)).catch(() => {});
      await Deno.remove(serviceAccount, { recursive: true });
    }
  },
});
