/**
 * Reading the process's standard input and writing its standard output as text, on Deno
 * and on Node -- for commands that filter (`kopf types -`) rather than log.
 *
 * @module
 */
import process from "node:process";

const encoder = new TextEncoder();

/** The whole standard input as UTF-8 text, once it has ended. */
export async function readStandardInput(): Promise<string> {
  if (typeof Deno !== "undefined") {
    return await new Response(Deno.stdin.readable).text();
  }
  const chunks: Uint8Array[] = [];
  for await (const chunk of process.stdin) {
    chunks.push(typeof chunk === "string" ? encoder.encode(chunk) : chunk);
  }
  return await new Response(new Blob(chunks as BlobPart[])).text();
}

/** Write text to standard output as it is (no newline added), all of it before returning. */
export async function writeStandardOutput(text: string): Promise<void> {
  if (typeof Deno !== "undefined") {
    const bytes = encoder.encode(text);
    let written = 0;
    while (written < bytes.length) written += await Deno.stdout.write(bytes.subarray(written));
    return;
  }
  await new Promise<void>((resolve, reject) => {
    process.stdout.write(text, (error) => (error ? reject(error) : resolve()));
  });
}

/**
 * Write text to standard output as it is, synchronously: for progress written between
 * other work (a line rewritten in place must be out before the next one).
 */
export function writeStandardOutputSync(text: string): void {
  if (typeof Deno !== "undefined") {
    const bytes = encoder.encode(text);
    let written = 0;
    while (written < bytes.length) written += Deno.stdout.writeSync(bytes.subarray(written));
    return;
  }
  process.stdout.write(text);
}

/** Whether standard output is a terminal (where a line may be rewritten in place). */
export function standardOutputIsTerminal(): boolean {
  if (typeof Deno !== "undefined") return Deno.stdout.isTerminal();
  return Boolean(process.stdout.isTTY);
}
