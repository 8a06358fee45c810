/**
 * Watching directories for changes of their files, on Deno and on Node: what
 * `kopf run --watch` restarts the operator on.
 *
 * Each directory is watched by itself, not recursively: the caller chooses which ones
 * (a recursive watch of a project would also watch its `node_modules` and `.git`, one
 * kernel watch per directory). Changes are the creation, modification, renaming or
 * removal of an entry; reading a file is none (Deno also reports the closing of a file
 * written, after its modification: left out as a repetition).
 *
 * @module
 */
import { type FSWatcher, watch } from "node:fs";

/**
 * Call `onChange` with the paths of the entries that change in the directories, until
 * the returned function is called. A directory that cannot be watched (removed, say) is
 * skipped; the others are still watched.
 */
export function watchDirectories(
  directories: readonly string[],
  onChange: (paths: string[]) => void,
): () => void {
  if (directories.length === 0) return () => {};
  if (typeof Deno !== "undefined") {
    let watcher: Deno.FsWatcher;
    try {
      watcher = Deno.watchFs([...directories], { recursive: false });
    } catch {
      if (directories.length === 1) return () => {}; // gone: skipped
      // One of them is gone: watch each by itself.
      const closers = directories.map((dir) => watchDirectories([dir], onChange));
      return () => closers.forEach((close) => close());
    }
    // Events the watcher read before its close may still come out of it: none after a stop.
    let stopped = false;
    void (async () => {
      try {
        for await (const event of watcher) {
          if (stopped) break;
          if (event.kind !== "access" && event.kind !== "other") onChange(event.paths);
        }
      } catch {
        // Closed, or the watched directory went away: nothing more to report.
      }
    })();
    return () => {
      stopped = true;
      try {
        watcher.close();
      } catch {
        // Closed already.
      }
    };
  }
  const watchers: FSWatcher[] = [];
  let stopped = false;
  for (const dir of directories) {
    try {
      const watcher = watch(dir, { persistent: true }, (_event, name) => {
        if (!stopped) onChange([name ? `${dir}/${name}` : dir]);
      });
      watcher.on("error", () => watcher.close());
      watchers.push(watcher);
    } catch {
      // Gone: skipped.
    }
  }
  return () => {
    stopped = true;
    watchers.forEach((watcher) => watcher.close());
  };
}
