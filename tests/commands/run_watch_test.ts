/**
 * The loop of `kopf run --watch` with its processes, watches and signals replaced by
 * recordings: bursts of changes, operators that exit by themselves, signals passed on
 * once; and what it watches. (tests/commands/run_watch_process_test.ts runs the real
 * thing.)
 */
import {
  childArguments,
  isWatchedFile,
  MAX_WATCHED_DIRECTORIES,
  runWatching,
  superviseOperator,
  watchedDirectories,
  type WatchIo,
  watchRoots,
} from "../../src/commands/run_watch.ts";
import { CommandLineError, planRun } from "../../src/commands/run_options.ts";
import type { Respawned } from "../../src/platform/respawn.ts";
import type { TerminationSignal } from "../../src/platform/termination_signals.ts";
import { assert, assertEquals, assertRejects, assertThrows } from "../assert.ts";

const TIMING = { quiet: 0.02, longest: 0.1 };

/** An operator process that exits when told to (at once on signals unless `holding`). */
class FakeChild implements Respawned {
  readonly pid: number;
  readonly signals: string[] = [];
  readonly exited: Promise<number>;
  holding = false;
  exit!: (code: number) => void;

  constructor(pid: number) {
    this.pid = pid;
    this.exited = new Promise((resolve) => this.exit = resolve);
  }

  signal(signal: TerminationSignal | "SIGKILL"): void {
    this.signals.push(signal);
    if (!this.holding) queueMicrotask(() => this.exit(0));
  }
}

/** The loop's world, recorded; `spawned(n)` resolves once the n-th operator has started. */
class FakeWorld {
  readonly children: FakeChild[] = [];
  watched: readonly string[] = [];
  #onChange: (paths: string[]) => void = () => {};
  #onSignal: (signal: TerminationSignal) => void = () => {};
  #waiters: { count: number; resolve: () => void }[] = [];
  signalListeners = 0;

  readonly io: WatchIo = {
    spawn: () => {
      const child = new FakeChild(this.children.length + 1);
      this.children.push(child);
      for (const waiter of this.#waiters.filter((w) => w.count <= this.children.length)) {
        waiter.resolve();
      }
      return child;
    },
    watch: (directories, onChange) => {
      this.watched = directories;
      this.#onChange = onChange;
      return () => this.#onChange = () => {};
    },
    subdirectories: () => Promise.resolve([]),
    onSignals: (handler) => {
      this.#onSignal = handler;
      this.signalListeners++;
      return () => this.signalListeners--;
    },
  };

  change(...paths: string[]): void {
    this.#onChange(paths);
  }

  signal(signal: TerminationSignal): void {
    this.#onSignal(signal);
  }

  /** Resolves once `count` operators have been started; fails after 5 s. */
  spawned(count: number): Promise<FakeChild> {
    if (this.children.length >= count) return Promise.resolve(this.children[count - 1]);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no operator #${count} within 5 s`)), 5000);
      this.#waiters.push({
        count,
        resolve: () => {
          clearTimeout(timer);
          resolve(this.children[count - 1]);
        },
      });
    });
  }
}

function supervise(world: FakeWorld): Promise<number> {
  return superviseOperator({
    roots: ["/op"],
    args: ["run", "op.ts"],
    timing: TIMING,
    io: world.io,
  });
}

const settle = (seconds: number) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

Deno.test("a burst of changes is one restart; files that are no modules change nothing", async () => {
  const world = new FakeWorld();
  const loop = supervise(world);
  const first = await world.spawned(1);
  assertEquals(world.watched, ["/op"]);
  world.change("/op/README.md", "/op/.operator.ts.swp", "/op/operator.ts~");
  world.change("/op/operator.ts");
  world.change("/op/lib/util.ts", "/op/operator.ts");
  const second = await world.spawned(2);
  assertEquals(first.signals, ["SIGTERM"]);
  world.change("/op/notes.txt");
  await settle(TIMING.longest * 3); // no restart is coming: a bounded look
  assertEquals(world.children.length, 2);
  world.signal("SIGTERM");
  assertEquals(await loop, 0);
  assertEquals(second.signals, ["SIGTERM"]);
  assertEquals(world.signalListeners, 0);
});

Deno.test("changes that never pause restart the operator after the longest burst", async () => {
  const world = new FakeWorld();
  const loop = supervise(world);
  await world.spawned(1);
  let changing = true;
  const changes = (async () => {
    const until = Date.now() + TIMING.longest * 5 * 1000;
    while (Date.now() < until && changing) {
      world.change("/op/operator.ts");
      await settle(TIMING.quiet / 4);
    }
    return changing;
  })();
  await world.spawned(2);
  const stillChanging = changing;
  changing = false;
  await changes;
  assert(stillChanging, "the restart came only once the changes had paused");
  world.signal("SIGINT");
  assertEquals(await loop, 0);
});

Deno.test("an operator that exits by itself is waited for; a change starts it again", async () => {
  const world = new FakeWorld();
  const loop = supervise(world);
  const first = await world.spawned(1);
  first.exit(2); // a syntax error, say
  await settle(TIMING.longest); // it is not restarted on its own: a bounded look
  assertEquals(world.children.length, 1);
  world.change("/op/operator.ts");
  const second = await world.spawned(2);
  assertEquals(first.signals, []);
  second.exit(1);
  world.signal("SIGINT"); // stopped while waiting: a clean stop
  assertEquals(await loop, 0);
});

Deno.test("signals go to the running operator, and its exit code ends the loop", async () => {
  const world = new FakeWorld();
  const loop = supervise(world);
  const child = await world.spawned(1);
  child.holding = true;
  world.signal("SIGINT");
  world.signal("SIGINT"); // the second cuts its stop short, as with kopf run
  assertEquals(child.signals, ["SIGINT", "SIGINT"]);
  child.exit(1);
  assertEquals(await loop, 1);
  assertEquals(world.children.length, 1);
});

Deno.test("a signal during a restart is not passed on first: the operator stops already", async () => {
  const world = new FakeWorld();
  const loop = supervise(world);
  const child = await world.spawned(1);
  child.holding = true;
  world.change("/op/operator.ts");
  while (child.signals.length === 0) await settle(TIMING.quiet);
  world.signal("SIGINT");
  assertEquals(child.signals, ["SIGTERM"]);
  world.signal("SIGINT");
  assertEquals(child.signals, ["SIGTERM", "SIGINT"]);
  child.exit(0);
  assertEquals(await loop, 0);
  assertEquals(world.children.length, 1, "not started again after the signal");
});

Deno.test("the watched directories: the tree, but hidden ones and node_modules", async () => {
  const tree: Record<string, string[]> = {
    "/op": ["lib", ".git", "node_modules", "vendor"],
    "/op/lib": ["deep"],
    "/op/vendor": ["kopf"],
  };
  const list = (dir: string) => Promise.resolve(tree[dir] ?? []);
  assertEquals(await watchedDirectories(["/op"], list), {
    directories: ["/op", "/op/lib", "/op/vendor", "/op/lib/deep", "/op/vendor/kopf"],
    truncated: false,
  });
  const wide = (dir: string) =>
    Promise.resolve(dir === "/big" ? Array.from({ length: 2000 }, (_, i) => `d${i}`) : []);
  const big = await watchedDirectories(["/big"], wide);
  assertEquals(big.directories.length, MAX_WATCHED_DIRECTORIES);
  assert(big.truncated);
});

Deno.test("what changes restart, what is watched, and the operator's arguments", () => {
  for (const path of ["/op/a.ts", "/op/a.mjs", "/op/deno.json", "/op/x.tsx", "b.cts"]) {
    assert(isWatchedFile(path), path);
  }
  for (const path of ["/op/.a.ts.swp", "/op/a.ts~", "/op/README.md", "/op/.hidden.ts", "/op"]) {
    assert(!isWatchedFile(path), path);
  }
  const cwd = Deno.cwd();
  assertEquals(
    watchRoots([
      { name: "op/a.ts", specifier: `file://${cwd}/op/a.ts`, file: true },
      { name: "op/b.ts", specifier: `file://${cwd}/op/b.ts`, file: true },
      { name: "./lib/m.ts", specifier: `file://${cwd}/lib/m.ts`, file: false },
      { name: "npm:pkg", specifier: "npm:pkg", file: false },
    ]),
    [`${cwd}/op`, `${cwd}/lib`],
  );
  assertEquals(childArguments(["run", "--watch", "-A", "op.ts"]), ["run", "-A", "op.ts"]);
  assertThrows(() => childArguments(["run", "op.ts"]), CommandLineError, "has no --watch");
});

Deno.test("--watch is refused embedded, without files to watch, or for a missing file", async () => {
  const file = new URL(import.meta.url).pathname;
  await assertRejects(
    () => runWatching(planRun([file], { allNamespaces: true }), true),
    CommandLineError,
    "an embedded run (KopfRunner) cannot use it",
  );
  await assertRejects(
    () => runWatching(planRun([], { module: ["npm:some-operator"], allNamespaces: true }), false),
    CommandLineError,
    "--watch needs the operator's files",
  );
  await assertRejects(
    () => runWatching(planRun(["absent-operator.ts"], { allNamespaces: true }), false),
    CommandLineError,
    "Cannot load absent-operator.ts: no such file.",
  );
});
