/**
 * The benches' child-process helpers: a process's CPU split by thread, and a Deno cache of
 * its own for a child with other V8 flags.
 */
import {
  codeCacheApart,
  cpuSeconds,
  threadCpuSeconds,
} from "../../scripts/bench/support/process.ts";
import { assert, assertEquals } from "../assert.ts";

const PROCESS_MODULE = new URL("../../scripts/bench/support/process.ts", import.meta.url).href;

Deno.test("the CPU split by thread adds up to the process's, its main thread running the script", async () => {
  // A `deno run` child, as the benches run their controllers: its script runs on the thread
  // whose id is the process's. It spins for 300 ms, says so, and waits to be killed.
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      "const until = performance.now() + 300; while (performance.now() < until);" +
      "console.log('SPUN'); setInterval(() => {}, 1000);",
    ],
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  try {
    let text = "";
    while (!text.includes("SPUN")) {
      const { value, done } = await reader.read();
      assert(!done, "the child ended before it spun");
      text += value;
    }
    const { main, others } = await threadCpuSeconds(child.pid);
    const whole = await cpuSeconds(child.pid);
    // Even on a busy machine, the child had some of the 300 ms, nearly all on its main thread.
    assert(main >= 0.05, `the main thread's ${main} s should hold the spin`);
    assert(main > others, `the main thread's ${main} s against the others' ${others} s`);
    // Read a moment apart: within a few ticks of each other (ended threads are not counted).
    assert(Math.abs(main + others - whole) <= 0.05, `${main} + ${others} against ${whole}`);
  } finally {
    child.kill("SIGKILL");
    await child.status;
    await reader.cancel();
  }
});

Deno.test("a cache apart links the shared cache's folders, not its databases; the next run finds it by its flags", async () => {
  const tmp = await Deno.makeTempDir();
  const before = Deno.env.get("TMPDIR");
  Deno.env.set("TMPDIR", tmp);
  try {
    const flags = ["--max-semi-space-size=4", "--no-lazy"];
    const { DENO_DIR: dir } = await codeCacheApart(flags);
    assert(dir.startsWith(`${tmp}/kopf-bench-deno-dir-`), dir);
    const output = await new Deno.Command(Deno.execPath(), { args: ["info", "--json"] }).output();
    const shared = (JSON.parse(new TextDecoder().decode(output.stdout)) as { denoDir: string })
      .denoDir;
    const folders: string[] = [];
    for await (const entry of Deno.readDir(shared)) if (entry.isDirectory) folders.push(entry.name);
    const linked: string[] = [];
    for await (const entry of Deno.readDir(dir)) {
      assert(entry.isSymlink, `${entry.name} should be a link`);
      assertEquals(await Deno.readLink(`${dir}/${entry.name}`), `${shared}/${entry.name}`);
      linked.push(entry.name);
    }
    assertEquals(linked.sort(), folders.sort());
    // The next run -- another process -- finds the same directory for the same flags (the
    // code compiled there kept), and another one for other flags.
    const found = async (flags: string[]) => {
      const script = `import { codeCacheApart } from ${JSON.stringify(PROCESS_MODULE)};` +
        `console.log((await codeCacheApart(${JSON.stringify(flags)})).DENO_DIR);`;
      const run = await new Deno.Command(Deno.execPath(), {
        args: ["eval", script],
        env: { TMPDIR: tmp },
        stderr: "inherit",
      }).output();
      assert(run.success, "the other process failed");
      return new TextDecoder().decode(run.stdout).trim();
    };
    assertEquals(await found(flags), dir);
    assert(await found(["--no-lazy"]) !== dir);
  } finally {
    if (before === undefined) Deno.env.delete("TMPDIR");
    else Deno.env.set("TMPDIR", before);
    await Deno.remove(tmp, { recursive: true });
  }
});
