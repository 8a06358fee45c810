/**
 * What a plain operator loads at start: the static module graph of the package's entry
 * (`deno info --json`, imports that are `import()`ed at the point of use left out) holds none
 * of what only some operators use, so that their cost stays off every operator's start-up
 * (see docs/performance.md, "Start-up").
 */
import { assert, assertEquals } from "./assert.ts";

interface Dependency {
  specifier: string;
  isDynamic?: boolean;
  code?: { specifier: string };
}
interface GraphModule {
  specifier: string;
  dependencies?: Dependency[];
  npmPackage?: string;
}

const ENTRY = new URL("../mod.ts", import.meta.url);

/** The specifiers loaded statically from the entry, and what imports each first. */
async function staticGraph(): Promise<Map<string, string>> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", ENTRY.pathname],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert(output.success, new TextDecoder().decode(output.stderr));
  const graph = JSON.parse(new TextDecoder().decode(output.stdout)) as {
    modules: GraphModule[];
    redirects: Record<string, string>;
  };
  const modules = new Map(graph.modules.map((m) => [m.specifier, m]));
  const importer = new Map<string, string>([[ENTRY.href, ""]]);
  const queue = [ENTRY.href];
  while (queue.length > 0) {
    const from = queue.shift()!;
    for (const dependency of modules.get(from)?.dependencies ?? []) {
      const code = dependency.code?.specifier;
      if (code === undefined || dependency.isDynamic) continue;
      const target = graph.redirects[code] ?? code;
      if (importer.has(target)) continue;
      importer.set(target, from);
      queue.push(target);
    }
  }
  return importer;
}

const NOT_AT_START = [
  "npm:/@opentelemetry/api@", // tracing: only when something registered with the API
  "npm:/@kubernetes/client-node@", // piggybacking: only for its login
  "npm:/undici@", // insecure mode on Deno, and Node
  "npm:/yaml@", // kubeconfigs: only when one is read
  "/src/platform/http_server.ts", // servers: admission webhooks
  "/src/platform/certificates.ts", // their self-signed certificates
  "/src/platform/state_files.ts",
  "node:http",
  "node:https",
  "node:child_process", // credential plugins on Node
  "/src/engines/leader_election.ts", // coordination: only with settings.leadership
  "/src/engines/sharding.ts",
  "/src/engines/leases.ts",
  "/src/engines/admission.ts", // only with admission handlers
  "/src/engines/daemons.ts", // only with daemons or timers
  "/src/engines/peering.ts", // only to peer: not standalone, nor with Leases
  "/src/engines/peer_records.ts", // with the peering or the Leases' coordination
  "node:os", // the peers' and the Leases' holder identities
  "/src/platform/modules.ts", // node:path, node:url: only to say a package is missing
  "/src/platform/absolute_paths.ts", // node:path: the command line's directories
  "node:process", // Node's global instead, on Node only
  "node:fs/promises", // files: Deno's own API on Deno
  "node:tls", // CA pinning: only with a CA given
  "node:net",
  "/src/reactor/queueing/multiplexer.ts", // the queue: at the first state fed
  "/src/reactor/pipeline/pipeline_stages.ts", // the handling: at the first state processed
  "/src/handling/changing.ts",
  "/src/handling/application.ts",
  "/src/engines/indexing.ts", // only with index handlers
  "/src/reactor/objects/parent_changes.ts", // only with child handlers
  "/src/reactor/observation/child_watching.ts",
  "/src/structs/operator_metrics.ts", // only with a metrics endpoint
  "/src/structs/metrics.ts",
  "/src/client/kubeconfig.ts", // only to log in with a kubeconfig
  "/src/testing/", // the fake cluster
  "/src/cli/",
  "/src/commands/",
];

/**
 * The only `node:` module at start: async contexts (Deno has no other API for them). The first
 * `node:` module starts Node compatibility's modules; every further one, and any npm package
 * (the npm resolver, its modules: LogTape took `node:util`), costs start-up more.
 */
const NODE_AT_START = ["node:async_hooks"];

Deno.test("a plain operator's start loads no npm package and no node: module but async contexts", async () => {
  const graph = await staticGraph();
  const foreign = [...graph.keys()].filter((specifier) =>
    specifier.startsWith("npm:") ||
    (specifier.startsWith("node:") && !NODE_AT_START.includes(specifier))
  );
  assertEquals(
    foreign.map((specifier) => `${specifier} (imported by ${graph.get(specifier)})`),
    [],
  );
});

Deno.test("a plain operator's start loads no tracing, servers, coordination, peering, admission, daemons, queue, handling, indices, children, metrics, kubeconfig, fake cluster, CLI or YAML", async () => {
  const graph = await staticGraph();
  assert(graph.size > 50, `the entry's graph was read: ${graph.size} modules`);
  const loaded = [...graph.keys()].filter((specifier) =>
    NOT_AT_START.some((part) =>
      part.endsWith("@") || part.startsWith("/") ? specifier.includes(part) : specifier === part
    )
  );
  assertEquals(
    loaded.map((specifier) => `${specifier} (imported by ${graph.get(specifier)})`),
    [],
  );
});
