/**
 * A real kubectl bound to one fake cluster, for the end-to-end tests.
 */
import { available } from "../../platform/commands.ts";
import type { FakeCluster } from "../../../src/testing/mod.ts";

/** Whether kubectl is installed: the tests that need it are skipped without it. */
export const hasKubectl = await available("kubectl", ["version", "--client"]);

/** A kubectl bound to one cluster, with its own kubeconfig and discovery cache. */
export class Kubectl {
  private constructor(readonly dir: string, readonly kubeconfig: string) {}

  static async for(cluster: FakeCluster): Promise<Kubectl> {
    const dir = await Deno.makeTempDir({ prefix: "kubectl-e2e-" });
    return new Kubectl(dir, await cluster.writeKubeconfig(`${dir}/kubeconfig`));
  }

  get args(): string[] {
    return [`--kubeconfig=${this.kubeconfig}`, `--cache-dir=${this.dir}/cache`];
  }

  /** Run kubectl; returns stdout, throws with stderr on failure unless `allowFailure`. */
  async run(
    args: string[],
    options: { stdin?: string; allowFailure?: boolean } = {},
  ): Promise<{ ok: boolean; out: string; err: string }> {
    const child = new Deno.Command("kubectl", {
      args: [...this.args, ...args],
      stdin: options.stdin === undefined ? "null" : "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    if (options.stdin !== undefined) {
      const writer = child.stdin.getWriter();
      await writer.write(new TextEncoder().encode(options.stdin));
      await writer.close();
    }
    // A safety net only: a kubectl stuck on a request must not hang the suite.
    let overdue = false;
    const guard = setTimeout(() => {
      overdue = true;
      child.kill("SIGKILL");
    }, 60_000);
    const output = await child.output().finally(() => clearTimeout(guard));
    if (overdue) throw new Error(`kubectl ${args.join(" ")} was killed after 60 s`);
    const result = {
      ok: output.success,
      out: new TextDecoder().decode(output.stdout),
      err: new TextDecoder().decode(output.stderr),
    };
    if (!result.ok && !options.allowFailure) {
      throw new Error(`kubectl ${args.join(" ")} failed: ${result.err}`);
    }
    return result;
  }

  /** `kubectl apply [args] -f -` of a manifest. */
  apply(manifest: string, args: string[] = [], options: { allowFailure?: boolean } = {}) {
    return this.run(["apply", ...args, "-f", "-"], { stdin: manifest, ...options });
  }

  /** `kubectl patch <resource> <name> --type <type> -p <patch>`. */
  patch(
    resource: string,
    name: string,
    type: "merge" | "json" | "strategic",
    patch: unknown,
    options: { allowFailure?: boolean } = {},
  ) {
    return this.run(
      ["patch", resource, name, "--type", type, "-p", JSON.stringify(patch)],
      options,
    );
  }

  async json(args: string[]) {
    return JSON.parse((await this.run([...args, "-o", "json"])).out);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await Deno.remove(this.dir, { recursive: true });
  }
}
