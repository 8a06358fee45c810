/**
 * Paths made absolute and normalised, for the command line's project and watch directories.
 *
 * Apart from the file helpers (`files.ts`) because it needs `node:path`: the first `node:`
 * module a process loads starts Node compatibility's modules, which an operator does not pay
 * for this (see docs/performance.md, "Start-up").
 *
 * @module
 */
import { resolve } from "node:path";
import { currentDirectory, expandHome } from "./files.ts";

/** A path made absolute against the current directory, normalised (no `.` or `..`). */
export function absolutePath(path: string): string {
  return resolve(currentDirectory(), expandHome(path));
}
