/**
 * The commands that messages suggest follow where `kopf` runs: the framework's checkout
 * has its demo, a project of `kopf init` its fake-cluster task, a Node project neither.
 */
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import {
  denoCommand,
  denoTask,
  fakeClusterHint,
  type ProjectContext,
  projectContext,
} from "../../src/commands/project_context.ts";

Deno.test("the context: the tasks of deno.json or deno.jsonc, or a Node project", async () => {
  const dir = await Deno.makeTempDir();
  try {
    assertEquals((await projectContext(dir)).tasks, new Set());
    await Deno.writeTextFile(`${dir}/package.json`, "{}");
    const node = await projectContext(dir);
    assertEquals([node.nodeProject, node.runtime, node.tasks.size], [true, "deno", 0]);
    await Deno.writeTextFile(
      `${dir}/deno.jsonc`,
      '// tasks\n{ "tasks": { /* the fake one */ "fake-cluster": "x", "test": "y" } }\n',
    );
    const jsonc = await projectContext(dir);
    assertEquals([jsonc.nodeProject, [...jsonc.tasks]], [false, ["fake-cluster", "test"]]);
    // Comment markers inside strings stay text; trailing commas are JSONC's too.
    await Deno.writeTextFile(
      `${dir}/deno.jsonc`,
      '{ "lint": { "exclude": ["dist/*"] }, "tasks": { "ls": "ls */x", }, }\n',
    );
    assertEquals([...(await projectContext(dir)).tasks], ["ls"]);
    await Deno.writeTextFile(`${dir}/deno.json`, "not json");
    assertEquals((await projectContext(dir)).tasks, new Set());
    assertEquals((await projectContext()).tasks.has("demo"), true, "the checkout's own");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the fake cluster suggested: the demo, the project's task, npx kopf, this program", () => {
  const context = (over: Partial<ProjectContext>): ProjectContext => ({
    runtime: "deno",
    tasks: new Set(),
    nodeProject: false,
    ...over,
  });
  assertEquals(
    fakeClusterHint(context({ tasks: new Set(["demo", "fake-cluster"]) })),
    "or see it all work on an embedded fake cluster: deno task demo",
  );
  assertStringIncludes(
    fakeClusterHint(context({ tasks: new Set(["fake-cluster"]) })),
    "run `deno task fake-cluster` in another terminal and point KUBECONFIG at",
  );
  for (const node of [context({ nodeProject: true }), context({ runtime: "node" })]) {
    const hint = fakeClusterHint(node);
    assertStringIncludes(hint, "`npx kopf fake-cluster`");
    assert(!hint.includes("deno"), hint);
  }
  assertStringIncludes(
    fakeClusterHint(context({ program: "jsr:@kopf/kopf/cli" })),
    "`deno run --allow-all jsr:@kopf/kopf/cli fake-cluster`",
  );
  assertEquals(denoTask(context({}), "test"), "deno task test");
  assertEquals(
    denoTask(context({ runtime: "node", deno: "npx -y deno@2.9.6" }), "test"),
    "npx -y deno@2.9.6 task test",
  );
});

Deno.test("Deno in the user's shell: a deno on PATH, else npx; npx's own deno is not the shell's", async () => {
  const dir = await Deno.makeTempDir();
  const path = Deno.env.get("PATH");
  const npx = `npx -y deno@${Deno.version.deno}`;
  try {
    const bin = (sub: string, mode: number) => {
      Deno.mkdirSync(`${dir}/${sub}`, { recursive: true });
      Deno.writeTextFileSync(`${dir}/${sub}/deno`, "#!/bin/sh\n", { mode });
      return `${dir}/${sub}`;
    };
    const runners = [bin("_npx/abc/node_modules/.bin", 0o755), bin("app/node_modules/.bin", 0o755)];
    Deno.env.set("PATH", [...runners, bin("notes", 0o644), `${dir}/missing`].join(":"));
    assertEquals(await denoCommand(), npx);
    Deno.env.set("PATH", [...runners, bin("local/bin", 0o755)].join(":"));
    assertEquals(await denoCommand(), "deno");
    assertEquals((await projectContext(dir)).deno, "deno");
  } finally {
    if (path === undefined) Deno.env.delete("PATH");
    else Deno.env.set("PATH", path);
    await Deno.remove(dir, { recursive: true });
  }
});
