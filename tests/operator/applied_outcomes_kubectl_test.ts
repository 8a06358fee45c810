/**
 * A GitOps tool and the operator on the same object, end to end with the real kubectl as the
 * tool: `kubectl apply --server-side --field-manager=gitops` owns the spec and a label, the
 * operator (its writes by server-side apply) owns its finalizer, annotations, results and
 * conditions. Re-applying the manifest conflicts with nothing and changes nothing,
 * `kubectl diff --server-side` sees no difference, a changed manifest goes in without
 * `--force-conflicts`, and neither party's fields are lost. Skipped without kubectl.
 */
import { available } from "../platform/commands.ts";
import { assert, assertEquals } from "../assert.ts";
import { on } from "../../src/intents/registration.ts";
import type { RawBody } from "../../src/structs/bodies.ts";
import {
  Calls,
  clusterRegistry,
  DIFFBASE,
  FINALIZER,
  startCluster,
  testSettings,
  whileRunning,
} from "./harness.ts";

const hasKubectl = await available("kubectl", ["version", "--client"]);

function manifest(field: string): string {
  return `apiVersion: kopf.dev/v1
kind: KopfExample
metadata:
  name: synced
  namespace: default
  labels: {app.kubernetes.io/managed-by: gitops}
spec:
  field: ${field}
`;
}

async function kubectl(dir: string, args: string[], input: string) {
  const child = new Deno.Command("kubectl", {
    args: [`--kubeconfig=${dir}/kubeconfig`, `--cache-dir=${dir}/cache`, ...args],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(input));
  await writer.close();
  const guard = setTimeout(() => child.kill("SIGKILL"), 60_000); // a safety net only
  const output = await child.output().finally(() => clearTimeout(guard));
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: output.code, out: text(output.stdout), err: text(output.stderr) };
}

function ready(body: RawBody | undefined): boolean {
  const conditions = (body?.status as { conditions?: { type: string; status: string }[] })
    ?.conditions;
  return conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;
}

Deno.test({
  name: "kubectl apply --server-side as a GitOps tool and the operator's applies share an object",
  ignore: !hasKubectl,
  fn: async () => {
    await using cluster = await startCluster({ status: true, keyedConditions: true });
    const registry = clusterRegistry(cluster);
    const calls = new Calls();
    on.create("kopfexamples", { registry, id: "made" }, () => {
      calls.add("made");
      return { made: true };
    });
    on.update("kopfexamples", { registry, id: "changed" }, ({ spec }) => {
      calls.add("changed");
      return { field: spec.field as string };
    });
    on.delete("kopfexamples", { registry, id: "cleanup" }, () => {
      calls.add("cleanup");
    });
    const dir = await Deno.makeTempDir({ prefix: "kopf-gitops-" });
    const apply = ["apply", "--server-side", "--field-manager=gitops", "-f", "-"];
    const get = () => cluster.get("kopfexamples", "synced", { namespace: "default" });
    try {
      await cluster.writeKubeconfig(`${dir}/kubeconfig`);
      const settings = testSettings({ applying: { outcomes: true } });
      await whileRunning(registry, async () => {
        const created = await kubectl(dir, apply, manifest("one"));
        assertEquals(created.code, 0, created.err);
        await cluster.waitFor(
          "kopfexamples",
          "synced",
          (o) => ready(o) && o?.metadata?.annotations?.[DIFFBASE] !== undefined,
        );
        const handled = get()!;

        // The tool's view: nothing of its own differs, re-applying is no change at all.
        const diff = await kubectl(dir, [
          "diff",
          "--server-side",
          "--field-manager=gitops",
          "-f",
          "-",
        ], manifest("one"));
        assertEquals(diff.code, 0, `no difference expected: ${diff.out}${diff.err}`);
        const again = await kubectl(dir, apply, manifest("one"));
        assertEquals(again.code, 0, again.err);
        assertEquals(get()!.metadata?.resourceVersion, handled.metadata?.resourceVersion);

        // A change of the manifest goes in without forcing: it touches no field of the operator.
        const changed = await kubectl(dir, apply, manifest("two"));
        assertEquals(changed.code, 0, changed.err);
        await calls.until(1, (c) => c === "changed");
        await cluster.waitFor(
          "kopfexamples",
          "synced",
          (o) =>
            ready(o) && (o?.status as Record<string, unknown>)?.changed !== undefined &&
            JSON.parse(String(o?.metadata?.annotations?.[DIFFBASE])).spec.field === "two",
        );
        const body = get()!;
        assertEquals(body.spec, { field: "two" });
        assertEquals(body.metadata?.labels, { "app.kubernetes.io/managed-by": "gitops" });
        assertEquals(body.metadata?.finalizers, [FINALIZER]);
        const status = body.status as Record<string, unknown>;
        assertEquals(status.made, { made: true });
        assertEquals(status.changed, { field: "two" });
        const owners = (body.metadata?.managedFields ?? []) as unknown as {
          manager: string;
          operation: string;
          subresource?: string;
          fieldsV1: Record<string, Record<string, unknown>>;
        }[];
        const gitops = owners.find((e) => e.manager === "gitops")!;
        assertEquals(Object.keys(gitops.fieldsV1).sort(), ["f:metadata", "f:spec"]);
        const kopf = owners.filter((e) => e.manager === "kopf");
        assertEquals(kopf.map((e) => `${e.operation}/${e.subresource ?? ""}`).sort(), [
          "Apply/",
          "Apply/status",
        ]);

        // Deleted by the tool: the operator's cleanup runs, its finalizer goes, the object too.
        const deleted = await kubectl(dir, ["delete", "--wait=false", "-f", "-"], manifest("two"));
        assertEquals(deleted.code, 0, deleted.err);
        await calls.until(1, (c) => c === "cleanup");
        await cluster.waitFor("kopfexamples", "synced", (o) => o === undefined);
      }, { settings });
      assert(calls.count((c) => c === "made") === 1);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
