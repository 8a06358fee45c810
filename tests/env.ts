/**
 * Environment variables for tests. With `--parallel`, the test modules run side by side
 * in one process and share its environment: a variable one test sets is what the others
 * see. {@link withEnv} therefore holds a lock shared by all modules while a variable is
 * changed, so that no two tests change the environment at the same time.
 */

/** Any file will do: it is only opened to be locked. */
const LOCK_FILE = new URL("./env.ts", import.meta.url);

/** How deep this module is in nested {@link withEnv} calls, and its lock while it holds it. */
let depth = 0;
let lock: Deno.FsFile | undefined;

/** Run `fn` with an environment variable set, restoring it afterwards. Calls may nest. */
export async function withEnv<T>(name: string, value: string, fn: () => Promise<T>): Promise<T> {
  if (depth === 0) {
    const file = await Deno.open(LOCK_FILE, { read: true });
    await file.lock(true);
    lock = file;
  }
  depth++;
  const previous = Deno.env.get(name);
  Deno.env.set(name, value);
  try {
    return await fn();
  } finally {
    if (previous === undefined) Deno.env.delete(name);
    else Deno.env.set(name, previous);
    depth--;
    if (depth === 0) {
      const file = lock!;
      lock = undefined;
      await file.unlock();
      file.close();
    }
  }
}
