/**
 * Prometheus' own checker of the metrics text format, when installed (Debian package
 * `prometheus`; CI installs it).
 */

import { assertEquals } from "./assert.ts";

/** `promtool check metrics` on the text; `undefined` when promtool is not installed. */
export async function promtool(
  text: string,
): Promise<{ code: number; output: string } | undefined> {
  let child;
  try {
    child = new Deno.Command("promtool", {
      args: ["check", "metrics"],
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
  } catch {
    return undefined;
  }
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(text));
  await writer.close();
  const { code, stdout, stderr } = await child.output();
  return { code, output: new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr) };
}

/** Fails unless promtool accepts the text; warns and passes when promtool is not installed. */
export async function assertPromtoolAccepts(text: string): Promise<void> {
  const checked = await promtool(text);
  if (checked === undefined) {
    console.warn("promtool is not installed (Debian: apt-get install prometheus); skipped.");
  } else assertEquals(checked.code, 0, checked.output);
}

/** The value of one sample in a metrics exposition, or undefined without the series. */
export function sampleOf(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}
