/**
 * Writing text lines to the process's standard error, on Deno and on Node.
 *
 * @module
 */
import { nodeProcess } from "./process.ts";

const encoder = new TextEncoder();

/** Write one line (a newline is appended) to stderr, synchronously so that order is kept. */
export function writeStderrLine(line: string): void {
  if (typeof Deno !== "undefined") {
    const bytes = encoder.encode(line + "\n");
    let written = 0;
    while (written < bytes.length) written += Deno.stderr.writeSync(bytes.subarray(written));
  } else {
    nodeProcess().stderr.write(line + "\n");
  }
}
