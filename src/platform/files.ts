/**
 * Reading files and handling file paths, on Deno and on Node: kubeconfigs, certificates,
 * token files. Paths are plain strings; only POSIX-style and Windows-style absolute
 * paths are told apart, which is all that kubeconfig resolution needs.
 *
 * @module
 */
import { getEnv, nodeProcess } from "./process.ts";

/** `node:fs/promises`, loaded on Node only: Deno's start-up never pays for it. */
const nodeFs = () => import("node:fs/promises");

/** The error of a file that does not exist, told apart from other read failures. */
export class FileNotFoundError extends Error {
  override name = "FileNotFoundError";
  /** The path that was looked for. */
  readonly path: string;
  /** Build the error for a path. */
  constructor(path: string) {
    super(`The file ${path} does not exist.`);
    this.path = path;
  }
}

function isNotFound(e: unknown): boolean {
  if (typeof Deno !== "undefined" && e instanceof Deno.errors.NotFound) return true;
  return (e as { code?: string } | null)?.code === "ENOENT";
}

/** Read a whole file as UTF-8 text; a missing file raises {@link FileNotFoundError}. */
export async function readTextFile(path: string): Promise<string> {
  try {
    if (typeof Deno !== "undefined") return await Deno.readTextFile(path);
    return await (await nodeFs()).readFile(path, "utf8");
  } catch (e) {
    if (isNotFound(e)) throw new FileNotFoundError(path);
    throw e;
  }
}

/** Read a whole file as UTF-8 text, or `undefined` when it does not exist. */
export async function readTextFileIfExists(path: string): Promise<string | undefined> {
  try {
    return await readTextFile(path);
  } catch (e) {
    if (e instanceof FileNotFoundError) return undefined;
    throw e;
  }
}

/**
 * Read a whole file as UTF-8 text if that is allowed without asking: `undefined` when it
 * does not exist, cannot be read, or Deno's permissions do not already grant reading it
 * (so that a look at an optional file never stops the program at a permission prompt).
 */
export async function readTextFileQuietly(path: string): Promise<string | undefined> {
  if (typeof Deno !== "undefined") {
    if (Deno.permissions.querySync({ name: "read", path }).state !== "granted") return undefined;
  }
  try {
    return await readTextFileIfExists(path);
  } catch {
    return undefined;
  }
}

/** Write a whole file as UTF-8 text, replacing what it held. */
export async function writeTextFile(path: string, text: string): Promise<void> {
  if (typeof Deno !== "undefined") return await Deno.writeTextFile(path, text);
  await (await nodeFs()).writeFile(path, text, "utf8");
}

/** Remove a file if it exists; a missing one is fine. */
export async function removeFileIfExists(path: string): Promise<void> {
  try {
    if (typeof Deno !== "undefined") return await Deno.remove(path);
    await (await nodeFs()).rm(path);
  } catch (e) {
    if (!isNotFound(e)) throw e;
  }
}

/** Make a directory and any missing parents; an existing directory is fine. */
export async function makeDirectory(path: string): Promise<void> {
  if (typeof Deno !== "undefined") return await Deno.mkdir(path, { recursive: true });
  await (await nodeFs()).mkdir(path, { recursive: true });
}

/** What is at the path: a `"directory"`, a `"file"` (anything else), or `undefined`. */
export async function pathKind(path: string): Promise<"directory" | "file" | undefined> {
  try {
    if (typeof Deno !== "undefined") {
      return (await Deno.stat(path)).isDirectory ? "directory" : "file";
    }
    return (await (await nodeFs()).stat(path)).isDirectory() ? "directory" : "file";
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

/** The names of a directory's entries. */
export async function directoryEntries(path: string): Promise<string[]> {
  if (typeof Deno !== "undefined") {
    const names: string[] = [];
    for await (const entry of Deno.readDir(path)) names.push(entry.name);
    return names;
  }
  return await (await nodeFs()).readdir(path);
}

/**
 * The names of a directory's subdirectories (symbolic links to directories are not
 * followed, so that a walk over them cannot loop).
 */
export async function subdirectoryNames(path: string): Promise<string[]> {
  if (typeof Deno !== "undefined") {
    const names: string[] = [];
    for await (const entry of Deno.readDir(path)) if (entry.isDirectory) names.push(entry.name);
    return names;
  }
  return (await (await nodeFs()).readdir(path, { withFileTypes: true }))
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
}

/**
 * Copy a file, or a directory with everything in it, to a path that does not exist yet
 * (its parent must). Symbolic links are followed: the copy holds what they point to.
 */
export async function copyPath(from: string, to: string): Promise<void> {
  if ((await pathKind(from)) !== "directory") {
    if (typeof Deno !== "undefined") return await Deno.copyFile(from, to);
    return await (await nodeFs()).copyFile(from, to);
  }
  await makeDirectory(to);
  for (const name of await directoryEntries(from)) {
    await copyPath(`${from}/${name}`, `${to}/${name}`);
  }
}

/** The process's current working directory. */
export function currentDirectory(): string {
  return typeof Deno !== "undefined" ? Deno.cwd() : nodeProcess().cwd();
}

/** Whether a file (or directory) exists at the path. */
export async function pathExists(path: string): Promise<boolean> {
  return (await modificationStamp(path)) !== undefined;
}

/**
 * A stamp that changes whenever the file is replaced or rewritten (modification time,
 * size and inode), or `undefined` when the file does not exist. Cheap enough to call
 * before every use of a file that may rotate, such as a service-account token.
 */
export async function modificationStamp(path: string): Promise<string | undefined> {
  try {
    if (typeof Deno !== "undefined") {
      const info = await Deno.stat(path);
      return `${info.mtime?.getTime() ?? 0}:${info.size}:${info.ino ?? 0}`;
    }
    const info = await (await nodeFs()).stat(path);
    return `${info.mtimeMs}:${info.size}:${info.ino}`;
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

/** The user's home directory, from `HOME` (or `USERPROFILE` on Windows). */
export function homeDirectory(): string | undefined {
  return getEnv("HOME") || getEnv("USERPROFILE") || undefined;
}

/** Whether the path is absolute (POSIX `/x`, Windows `C:\x` or `\\server\x`). */
export function isAbsolutePath(path: string): boolean {
  return path.startsWith("/") || /^[A-Za-z]:[\\/]/.test(path) || path.startsWith("\\\\");
}

/** The directory part of a path (`.` when there is none). */
export function directoryOf(path: string): string {
  const cut = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
  if (cut < 0) return ".";
  return cut === 0 ? path.slice(0, 1) : path.slice(0, cut);
}

/** Expand a leading `~` to the home directory. */
export function expandHome(path: string): string {
  if (path !== "~" && !path.startsWith("~/") && !path.startsWith("~\\")) return path;
  const home = homeDirectory();
  return home === undefined ? path : home + path.slice(1);
}

/** Resolve a path relative to a base directory, leaving absolute paths as they are. */
export function resolvePath(baseDirectory: string, path: string): string {
  const expanded = expandHome(path);
  if (isAbsolutePath(expanded)) return expanded;
  const sep = baseDirectory.includes("\\") && !baseDirectory.includes("/") ? "\\" : "/";
  const base = baseDirectory.replace(/[\\/]+$/, "");
  return expanded.startsWith("./")
    ? `${base}${sep}${expanded.slice(2)}`
    : `${base}${sep}${expanded}`;
}

/** The separator of path lists in environment variables: `;` on Windows, else `:`. */
export function pathListSeparator(): string {
  if (typeof Deno !== "undefined") return Deno.build.os === "windows" ? ";" : ":";
  return (globalThis as { process?: { platform?: string } }).process?.platform === "win32"
    ? ";"
    : ":";
}

/**
 * The directories of `PATH` that hold an executable file named `name` (`name.exe` too on
 * Windows), in `PATH`'s order; none when `PATH` or a directory cannot be read.
 */
export async function directoriesOnPath(name: string): Promise<string[]> {
  let path: string | undefined;
  try {
    path = getEnv("PATH");
  } catch {
    return []; // no permission to read the environment
  }
  const windows = pathListSeparator() === ";";
  const found: string[] = [];
  for (const dir of (path ?? "").split(pathListSeparator()).filter(Boolean)) {
    for (const file of windows ? [`${name}.exe`, name] : [name]) {
      try {
        const info = typeof Deno !== "undefined"
          ? await Deno.stat(`${dir}/${file}`)
          : await (await nodeFs()).stat(`${dir}/${file}`);
        const isFile = typeof info.isFile === "function" ? info.isFile() : info.isFile;
        const mode = info.mode;
        if (isFile && (windows || mode === null || (mode & 0o111) !== 0)) {
          found.push(dir);
          break;
        }
      } catch {
        // Not there, or not readable: not a command of this PATH.
      }
    }
  }
  return found;
}
