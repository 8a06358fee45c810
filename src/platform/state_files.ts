/**
 * Files for small state: write one atomically (a crash never leaves half a file), make
 * a private temporary directory. Deno and Node.
 *
 * @module
 */
import * as os from "node:os";
import * as path from "node:path";

/** `node:fs/promises`, loaded on Node only: Deno's start-up never pays for it. */
const nodeFs = () => import("node:fs/promises");

/** Write a file through a temporary sibling and a rename, so readers never see half of it. */
export async function writeTextFileAtomic(file: string, text: string, mode = 0o600): Promise<void> {
  const dir = path.dirname(file);
  const temp = path.join(dir, `.${path.basename(file)}.${crypto.randomUUID().slice(0, 8)}.tmp`);
  if (typeof Deno !== "undefined") {
    await Deno.mkdir(dir, { recursive: true });
    await Deno.writeTextFile(temp, text, { mode });
    await Deno.rename(temp, file);
  } else {
    const fs = await nodeFs();
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(temp, text, { encoding: "utf8", mode });
    await fs.rename(temp, file);
  }
}

/** A fresh private directory under the system's temporary directory. */
export async function makeTempDir(prefix: string): Promise<string> {
  if (typeof Deno !== "undefined") return await Deno.makeTempDir({ prefix });
  return await (await nodeFs()).mkdtemp(path.join(os.tmpdir(), prefix));
}

/** Remove a directory and everything in it; a missing one is fine. */
export async function removeDirectory(dir: string): Promise<void> {
  if (typeof Deno !== "undefined") {
    await Deno.remove(dir, { recursive: true }).catch((error) => {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    });
  } else {
    await (await nodeFs()).rm(dir, { recursive: true, force: true });
  }
}

/** Join path segments with the platform's separator. */
export function joinPath(...parts: string[]): string {
  return path.join(...parts);
}
