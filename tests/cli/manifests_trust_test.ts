/**
 * `kopf manifests` as a user runs it: the Deployment empties Deno's root store (the pods
 * trust the cluster's CA alone), and `--public-roots` keeps the runtime's roots — in the
 * manifests, and as the default of the Helm chart's `publicRoots`.
 */
import { parseAllDocuments } from "yaml";
import { assertEquals } from "../assert.ts";
import { runKopf as kopf } from "./kopf_command.ts";
import { ROOT } from "../platform/commands.ts";

const CRD = `${ROOT}/examples/crd.yaml`;
const EXAMPLE = `${ROOT}/examples/01-minimal/example.ts`;

/** The variables of the Deployment's container in what `kopf manifests` printed. */
function containerEnv(yaml: string): { name: string; value?: string }[] {
  const deployment = parseAllDocuments(yaml).map((d) => d.toJS())
    .find((o) => o?.kind === "Deployment");
  return deployment.spec.template.spec.containers[0].env;
}

Deno.test("kopf manifests: DENO_TLS_CA_STORE empty in the Deployment; --public-roots drops it", async () => {
  const plain = await kopf(["manifests", "-n", "default", "--crd", CRD, EXAMPLE]);
  assertEquals(plain.code, 0, plain.stderr);
  assertEquals(
    containerEnv(plain.stdout).filter((v) => v.name !== "POD_ID"),
    [{ name: "DENO_TLS_CA_STORE", value: "" }],
  );
  const kept = await kopf(["manifests", "-n", "default", "--crd", CRD, "--public-roots", EXAMPLE]);
  assertEquals(kept.code, 0, kept.stderr);
  assertEquals(containerEnv(kept.stdout).map((v) => v.name), ["POD_ID"]);
});

Deno.test("kopf manifests --helm --public-roots: the chart keeps the roots by default", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kopf-helm-trust-" });
  try {
    const values = async (...flags: string[]) => {
      const args = ["manifests", "-n", "default", "--crd", CRD, ...flags, "--helm", dir, EXAMPLE];
      const written = await kopf(args);
      assertEquals(written.code, 0, written.stderr);
      return parseAllDocuments(await Deno.readTextFile(`${dir}/values.yaml`))[0].toJS();
    };
    assertEquals((await values()).publicRoots, false);
    assertEquals((await values("--public-roots")).publicRoots, true);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
