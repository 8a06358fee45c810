/**
 * `kopf …` in a separate process, as a user runs it: no credentials in its environment
 * unless given, its output collected line by line, lines awaited rather than slept for.
 */

const MAIN = new URL("../../src/cli/main.ts", import.meta.url).pathname;

export interface Spawned {
  readonly process: Deno.ChildProcess;
  readonly stderrLines: string[];
  readonly waitForLine: (text: string) => Promise<string>;
  readonly finished: Promise<{ code: number; stdout: string; stderr: string }>;
}

/** The environment without any way to a cluster: no KUBECONFIG, a home without ~/.kube. */
function isolatedEnv(extra: Record<string, string>): Record<string, string> {
  const env = Deno.env.toObject();
  const home = env.HOME ?? "";
  for (const name of ["KUBECONFIG", "KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT"]) {
    delete env[name];
  }
  // Deno keeps its cache under the home directory unless told otherwise.
  env.DENO_DIR ??= `${home}/.cache/deno`;
  return { ...env, HOME: "/nonexistent", NO_COLOR: "1", ...extra };
}

/** Start `kopf …` in a separate process with no credentials in its environment. */
export function spawnKopf(args: string[], env: Record<string, string> = {}): Spawned {
  const process = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, ...args],
    clearEnv: true,
    env: isolatedEnv(env),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderrLines: string[] = [];
  const waiters: { text: string; resolve: (line: string) => void }[] = [];
  const collect = async (stream: ReadableStream<Uint8Array>, into: string[]) => {
    let buffer = "";
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      buffer += chunk;
      let at: number;
      while ((at = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, at);
        buffer = buffer.slice(at + 1);
        into.push(line);
        for (const w of [...waiters]) {
          if (line.includes(w.text)) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve(line);
          }
        }
      }
    }
    if (buffer) into.push(buffer);
  };
  const stdoutLines: string[] = [];
  const reading = Promise.all([
    collect(process.stdout, stdoutLines),
    collect(process.stderr, stderrLines),
  ]);
  // A safety net only: the tests wait for lines and exits, never for a fixed time.
  let overdue = false;
  const guard = setTimeout(() => {
    overdue = true;
    process.kill("SIGKILL");
  }, 60_000);
  const finished = (async () => {
    const status = await process.status.finally(() => clearTimeout(guard));
    await reading;
    if (overdue) {
      throw new Error(`kopf ${args.join(" ")} was killed after 60 s:\n${stderrLines.join("\n")}`);
    }
    return { code: status.code, stdout: stdoutLines.join("\n"), stderr: stderrLines.join("\n") };
  })();
  const waitForLine = (text: string) => {
    const seen = stderrLines.find((l) => l.includes(text));
    if (seen) return Promise.resolve(seen);
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        process.kill("SIGKILL");
        reject(new Error(`kopf printed no ${text} within 20 s:\n${stderrLines.join("\n")}`));
      }, 20_000);
      waiters.push({
        text,
        resolve: (line) => {
          clearTimeout(timer);
          resolve(line);
        },
      });
      finished.then(() => {
        clearTimeout(timer);
        reject(new Error(`kopf ended without printing ${text}:\n${stderrLines.join("\n")}`));
      }, (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
  };
  return { process, stderrLines, waitForLine, finished };
}

/** SIGTERM, then the result; a process still running after 15 s is killed and fails the test. */
export async function terminate(
  kopf: Spawned,
): Promise<{ code: number; stdout: string; stderr: string }> {
  kopf.process.kill("SIGTERM");
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      kopf.process.kill("SIGKILL");
      reject(
        new Error(`kopf did not stop within 15 s of SIGTERM:\n${kopf.stderrLines.join("\n")}`),
      );
    }, 15_000);
  });
  try {
    return await Promise.race([kopf.finished, late]);
  } finally {
    clearTimeout(timer);
  }
}
