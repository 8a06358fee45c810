/**
 * The operator's lines that the docs quote are the lines it prints: each quote below is
 * taken from the docs as written (`…` standing for any text) and looked for in the output of
 * an operator set up as the docs describe.
 */
import { assert, assertEquals } from "./assert.ts";
import { parse } from "yaml";
import { kopf, type RawBody } from "../mod.ts";
import { FakeCluster, KopfRunner } from "../src/testing/mod.ts";
import { ROOT, runDeno } from "./platform/commands.ts";
import { escape, patternOf, quotes, textBlockLines } from "./doc_quotes.ts";

const MAIN = `${ROOT}/src/cli/main.ts`;

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

Deno.test("docs/configuration.md quotes kopf run's load failures as it prints them", async () => {
  const quoted = await textBlockLines("configuration.md");
  const dir = await Deno.makeTempDir({ prefix: "kopf-docs-" });
  await Deno.mkdir(`${dir}/lib`);
  await Deno.writeTextFile(`${dir}/lib/sums.ts`, "const a = 1;\nexport const total = a +* 2;\n");
  await Deno.writeTextFile(
    `${dir}/settings.ts`,
    "function required(name: string): never {\n" +
      "  throw new Error(`no ${name} in the settings file`);\n" +
      "}\n" +
      'export const url = required("url");\n',
  );
  const printed: string[] = [];
  for (const imported of ["./lib/sums.ts", "./settings.ts"]) {
    await Deno.writeTextFile(`${dir}/operator.ts`, `import "${imported}";\n`);
    const result = await runDeno(["run", "-A", MAIN, "run", "-A", "operator.ts"], {
      cwd: dir,
      env: { KUBECONFIG: "/nonexistent/kubeconfig", NO_COLOR: "1" },
      timeout: 60,
    });
    printed.push(...result.stderr.trimEnd().split("\n"));
  }
  assertEquals(printed, quoted);
});

Deno.test("docs/handlers-and-causes.md quotes a handler's log line as full and JSON lines print it", async () => {
  const [full, json] = await textBlockLines("handlers-and-causes.md");
  const lines: string[] = [];
  for (const format of ["full", "json"]) {
    await using cluster = await FakeCluster.start();
    cluster.create(
      parse(await Deno.readTextFile(new URL("../examples/crd.yaml", import.meta.url))) as RawBody,
    );
    const registry = new kopf.OperatorRegistry();
    kopf.on.create("kopfexamples", { registry }, function create_fn() {});
    await using runner = await KopfRunner.start(
      ["run", "--standalone", "-n", "default", "--log-format", format],
      { registry, cluster },
    );
    cluster.create(
      parse(await Deno.readTextFile(new URL("../examples/obj.yaml", import.meta.url))) as RawBody,
    );
    lines.push(await runner.waitForOutput("Handler 'create_fn' succeeded"));
  }
  const time = (quote: string) =>
    new RegExp(
      "^" + quote.split("…").map(escape).join('[^"]*')
        .replace(
          escape("2026-01-01 12:00:00,123"),
          "\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d,\\d{3}",
        )
        .replace(escape("2026-01-01T12:00:00.123Z"), "\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z") +
        "$",
    );
  assert(time(full).test(lines[0]), `${full}\n${lines[0]}`);
  assert(time(json).test(lines[1]), `${json}\n${lines[1]}`);
});

Deno.test("docs/conditions.md quotes the messages of a handler retrying, failed and out of retries", async () => {
  const all = await quotes("conditions.md", "Handler 'create_fn' ");
  const [retrying, failed, exceeded] = ["is retrying", "failed: ", "exceeded"]
    .map((words) => all.find((q) => q.includes(words)));
  assert(retrying && failed && exceeded, "the doc quotes all three");
  await using cluster = await FakeCluster.start();
  cluster.create(
    parse(await Deno.readTextFile(new URL("../examples/crd.yaml", import.meta.url))) as RawBody,
  );
  const registry = new kopf.OperatorRegistry();
  kopf.on.create(
    "kopfexamples",
    { registry, retries: 3, backoff: 0.1 },
    function create_fn({ name }) {
      if (name === "gone") throw new kopf.PermanentError("the database is gone");
      throw new kopf.TemporaryError("not yet", { delay: 0.1 });
    },
  );
  await using _runner = await KopfRunner.start(["run", "--standalone", "-n", "default"], {
    registry,
    cluster,
  });
  const example = parse(
    await Deno.readTextFile(new URL("../examples/obj.yaml", import.meta.url)),
  ) as RawBody;
  cluster.create(example);
  cluster.create({ ...example, metadata: { ...example.metadata, name: "gone" } });
  const messagesOf = async (name: string, until: (messages: Set<string>) => boolean) => {
    const messages = new Set<string>();
    await cluster.waitFor("kopfexamples.kopf.dev", name, (kex) => {
      const conditions = (kex?.status as { conditions?: { message?: string }[] } | undefined)
        ?.conditions ?? [];
      for (const condition of conditions) if (condition.message) messages.add(condition.message);
      return until(messages);
    });
    return messages;
  };
  const retried = await messagesOf("kopf-example-1", (messages) => messages.has(exceeded));
  assert(retried.has(retrying), [...retried].join("\n"));
  await messagesOf("gone", (messages) => [...messages].some((m) => patternOf(failed).test(m)));
});

Deno.test("docs/configuration.md quotes the line of a server's warning as the operator logs it", async () => {
  const [quote] = await quotes("configuration.md", "The API server warns on");
  assert(quote !== undefined, "the doc quotes it");
  await using cluster = await FakeCluster.start();
  const registry = new kopf.OperatorRegistry();
  kopf.on.create("configmaps", { registry, id: "result" }, () => ({ done: true }));
  await using runner = await KopfRunner.start(["run", "--standalone", "-n", "default"], {
    registry,
    cluster,
  });
  cluster.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a" } });
  const line = await runner.waitForOutput("The API server warns");
  assert(patternOf(quote).test(line), `${quote}\n${line}`);
  // The server's own words, as docs/handlers-and-causes.md quotes them.
  const words = await quotes("handlers-and-causes.md", 'unknown field "');
  assert(words.length === 1 && line.endsWith(`: ${words[0]}`), `${words}\n${line}`);
});

Deno.test("README.md quotes the last line of what CI runs as the script prints it", async () => {
  const [quoted] = await quotes("../README.md", "N passed");
  assert(quoted !== undefined, "README.md quotes it");
  const script = await Deno.readTextFile(new URL("../.ci/run", import.meta.url));
  // The script's last echo, each number it prints written N (running it runs the whole suite).
  const echoes = [...script.matchAll(/^echo "(.*)"$/gm)].map((m) => m[1]);
  assertEquals(echoes.at(-1)?.replace(/\$\{\w+\}/g, "N"), quoted);
});
