/**
 * The demo (`deno task demo`, the README's first command) runs with the task's own
 * permission flags — never -A — and shows what the operator did.
 */
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { ROOT, runDeno } from "../platform/commands.ts";

Deno.test("deno task demo: create, change, delete, narrated; exit code 0", async () => {
  const config = JSON.parse(await Deno.readTextFile(`${ROOT}/deno.json`));
  const task: string = config.tasks.demo;
  const words = task.split(/\s+/);
  assertEquals(words.slice(0, 2), ["deno", "run"]);
  assert(!words.includes("-A") && !words.includes("--allow-all"), task);
  // Loopback only: the demo talks to nothing but its own embedded cluster.
  const net = words.filter((w) => w.startsWith("--allow-net"));
  assertEquals(net, ["--allow-net=127.0.0.1"]);
  const result = await runDeno(words.slice(1), { cwd: ROOT });
  assertEquals(result.code, 0, result.stderr);
  const out = result.stdout;
  // The first lines say what the demo does, before it does anything.
  const lines = out.split("\n");
  assertStringIncludes(lines[0], "a demo operator on an embedded fake cluster");
  assertStringIncludes(lines[1], "What it does");
  const intro = lines.slice(0, lines.findIndex((l) => l.trim() === ""));
  for (const step of ["fake Kubernetes API server", "operator", "create, change and delete"]) {
    assert(intro.some((l) => l.includes(step)), `the intro mentions ${step}:\n${intro.join("\n")}`);
  }
  assert(out.indexOf("What it does") < out.indexOf("listens at"), "the intro comes first");
  for (
    const text of [
      "$ kubectl apply -f examples/obj.yaml",
      "[default/kopf-example-1] Handler 'createFn' succeeded.",
      'status.createFn: {"message":"hello world"}',
      'finalizers: ["kopf.zalando.org/KopfFinalizerMarker"]',
      'spec.field changed: "value" → "changed"',
      "status.field: changed",
      "Cleaning up before the object goes away.",
      'kopfexample "kopf-example-1" deleted',
      "Greeting   Hello from the demo operator.",
      "Done.",
    ]
  ) assertStringIncludes(out, text);
  // Each step's handler ran once.
  assertEquals(out.split("Handler 'createFn' succeeded.").length - 1, 2, "log + event");
  assertEquals(out.split("Handler 'deleteFn' succeeded.").length - 1, 2, "log + event");
  assert(!out.includes("\x1b["), "no colours with NO_COLOR");
});

Deno.test("deno task demo into a pipe: no colours, even without NO_COLOR", async () => {
  const config = JSON.parse(await Deno.readTextFile(`${ROOT}/deno.json`));
  const words = (config.tasks.demo as string).split(/\s+/);
  const env: Record<string, string> = {};
  for (const name of ["PATH", "HOME", "DENO_DIR", "XDG_CACHE_HOME"]) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  const child = new Deno.Command(Deno.execPath(), {
    args: words.slice(1),
    cwd: ROOT,
    clearEnv: true,
    env,
    stdout: "piped",
    stderr: "piped",
  });
  const { code, stdout, stderr } = await child.output();
  const out = new TextDecoder().decode(stdout);
  assertEquals(code, 0, new TextDecoder().decode(stderr));
  assertStringIncludes(out, "$ kubectl apply -f examples/obj.yaml");
  assert(!out.includes("\x1b["), `colours in a pipe:\n${out.slice(0, 400)}`);
});
