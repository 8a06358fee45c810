/**
 * Watching directories: an entry's creation, modification, renaming and removal are
 * reported with its path; a subdirectory's entries are not (each directory is watched by
 * itself); a directory that cannot be watched is skipped; after the stop, nothing.
 */
import { watchDirectories } from "../../src/platform/file_watching.ts";
import { assert, assertEquals } from "../assert.ts";

/** The paths reported, and a way to await one. */
function recorder() {
  const seen: string[] = [];
  const waiters: { path: string; resolve: () => void }[] = [];
  const onChange = (paths: string[]) => {
    seen.push(...paths);
    for (const waiter of waiters.filter((w) => paths.includes(w.path))) waiter.resolve();
  };
  const reported = (path: string) =>
    seen.includes(path) ? Promise.resolve() : new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${path} not reported: ${seen}`)), 5000);
      waiters.push({ path, resolve: () => (clearTimeout(timer), resolve()) });
    });
  return { seen, onChange, reported };
}

Deno.test("changes of a directory's entries are reported with their paths", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.mkdir(`${dir}/sub`);
  await Deno.writeTextFile(`${dir}/old.ts`, "1");
  const { seen, onChange, reported } = recorder();
  const stop = watchDirectories([dir, `${dir}/absent`], onChange);
  try {
    await Deno.writeTextFile(`${dir}/sub/deep.ts`, "not watched");
    await Deno.readTextFile(`${dir}/old.ts`);
    await Deno.writeTextFile(`${dir}/a.ts`, "created");
    await reported(`${dir}/a.ts`);
    await Deno.writeTextFile(`${dir}/old.ts`, "modified");
    await reported(`${dir}/old.ts`);
    await Deno.rename(`${dir}/a.ts`, `${dir}/b.ts`);
    await reported(`${dir}/b.ts`);
    seen.length = 0;
    await Deno.remove(`${dir}/b.ts`);
    await reported(`${dir}/b.ts`);
    assert(!seen.includes(`${dir}/sub/deep.ts`), String(seen));
  } finally {
    stop();
  }
  seen.length = 0;
  await Deno.writeTextFile(`${dir}/after.ts`, "stopped");
  // A last change to a directory still watched by another watcher shows the events flow.
  const { onChange: other, reported: otherReported } = recorder();
  const stopOther = watchDirectories([dir], other);
  await Deno.writeTextFile(`${dir}/later.ts`, "x");
  await otherReported(`${dir}/later.ts`);
  stopOther();
  assertEquals(seen, [], "nothing after the stop");
  await Deno.remove(dir, { recursive: true });
});
