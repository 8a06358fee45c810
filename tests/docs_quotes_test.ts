/**
 * The operator's lines that the docs quote are the lines it prints: each quote below is
 * taken from the docs as written (`…` standing for any text) and looked for in the output of
 * an operator set up as the docs describe.
 */
import { assert } from "./assert.ts";
import { kopf } from "../mod.ts";
import { FakeCluster, KopfRunner } from "../src/testing/mod.ts";

const DOCS = new URL("../docs/", import.meta.url);

/** The backquoted spans of a doc that start with `prefix`. */
async function quotes(doc: string, prefix: string): Promise<string[]> {
  const text = (await Deno.readTextFile(new URL(doc, DOCS)))
    .replace(/```[\s\S]*?```/g, "") // code blocks: their backquotes are no spans
    .replace(/\n\s*/g, " ");
  return [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]).filter((q) => q.startsWith(prefix));
}

/** A quote as a pattern: `…` is any text; the line may end with a period. */
function patternOf(quote: string): RegExp {
  const escaped = quote.split("…").map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(escaped.join(".*") + "\\.?$");
}

/** Each quote of the doc that starts with `prefix` (and passes `which`) is a printed line. */
async function assertQuoted(
  doc: string,
  prefix: string,
  lines: readonly string[],
  which: (quote: string) => boolean = () => true,
): Promise<void> {
  const quoted = (await quotes(doc, prefix)).filter(which);
  assert(quoted.length > 0, `${doc} quotes a line starting with ${prefix}`);
  for (const quote of quoted) {
    assert(
      lines.some((line) => patternOf(quote).test(line)),
      `not printed: ${quote}\n${lines.filter((l) => l.includes("Watching")).join("\n")}`,
    );
  }
}

async function operatorLines(registry: kopf.OperatorRegistry): Promise<readonly string[]> {
  await using cluster = await FakeCluster.start();
  const runner = await KopfRunner.start(["run", "--standalone", "-n", "default", "-v"], {
    registry,
    cluster,
  });
  await runner.waitForOutput(/Watching pods|Watching configmaps/);
  await runner.stop();
  return runner.lines;
}

Deno.test("docs/large-clusters.md quotes the watch line the operator prints for derived selectors", async () => {
  const registry = new kopf.OperatorRegistry();
  for (const id of ["a", "b", "c"]) {
    kopf.on.create("pods", { registry, id, labels: { app: "watched" } }, () => {});
  }
  const lines = await operatorLines(registry);
  await assertQuoted("large-clusters.md", "Watching pods", lines, (q) => q.includes("app=watched"));
});

Deno.test("docs/children.md quotes the children's watch line the operator prints", async () => {
  const registry = new kopf.OperatorRegistry();
  kopf.on.child("pods", "configmaps", { registry, id: "repair" }, () => {});
  await assertQuoted("children.md", "Watching configmaps", await operatorLines(registry));
});

Deno.test("docs/large-clusters.md quotes the watch line of a resource without selectors", async () => {
  const registry = new kopf.OperatorRegistry();
  kopf.on.create("pods", { registry, id: "a", labels: { app: "watched" } }, () => {});
  kopf.on.event("pods", { registry, id: "sync" }, () => {});
  await assertQuoted("large-clusters.md", "… without selectors", await operatorLines(registry));
});
