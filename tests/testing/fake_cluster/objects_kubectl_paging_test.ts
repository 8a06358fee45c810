/**
 * The fake cluster's paginated lists with a client nobody here wrote: `kubectl get
 * --chunk-size=N` follows the `continue` tokens, page by page, to the full listing.
 */
import { available } from "../../platform/commands.ts";
import { FakeCluster } from "../../../src/testing/mod.ts";
import { assert, assertEquals } from "../../assert.ts";
import { configMap } from "./helpers.ts";

const hasKubectl = await available("kubectl", ["version", "--client"]);

Deno.test({
  name: "kubectl get --chunk-size pages through the listing with limit and continue",
  ignore: !hasKubectl,
  async fn() {
    await using cluster = await FakeCluster.start();
    const names = Array.from({ length: 23 }, (_, i) => `cm-${String(i).padStart(2, "0")}`);
    for (const name of names) cluster.create(configMap(name));
    const dir = await Deno.makeTempDir({ prefix: "kubectl-paging-" });
    try {
      const kubeconfig = await cluster.writeKubeconfig(`${dir}/kubeconfig`);
      for (const output of [["-o", "name"], []]) {
        const out = await new Deno.Command("kubectl", {
          args: [
            `--kubeconfig=${kubeconfig}`,
            `--cache-dir=${dir}/cache`,
            "get",
            "configmaps",
            "--chunk-size=5",
            ...output,
          ],
          stdout: "piped",
          stderr: "piped",
        }).output();
        const text = new TextDecoder().decode(out.stdout);
        assert(out.success, new TextDecoder().decode(out.stderr));
        const listed = text.trim().split("\n").filter((l) => !l.startsWith("NAME")).map((l) =>
          l.split(/\s+/)[0].replace("configmap/", "")
        );
        assertEquals(listed.filter((n) => n.startsWith("cm-")), names, text);
      }
      const pages = cluster.requests.filter((r) =>
        r.verb === "list" && r.path === "/api/v1/namespaces/default/configmaps"
      );
      // Two listings (names, then a table), each of five pages of at most five objects.
      assertEquals(pages.length, 10);
      for (const page of pages) {
        const query = new URLSearchParams(page.query);
        assertEquals([query.get("limit"), page.status], ["5", 200]);
        assert((page.items ?? 0) <= 5);
      }
      assertEquals(pages.filter((p) => p.query.includes("continue=")).length, 8);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
