/**
 * Type-checking code in tests: snippets are written to a temporary directory and checked
 * with one `deno check` (the project's configuration: its npm packages), and the
 * compiler's diagnostics are read back one by one, each with the snippet it is in — so that
 * a test can say which mistake gives which message, and what its first line says.
 */

const ROOT = new URL("../", import.meta.url);

/** The entry point of the package, for snippets to import: `import { kopf } from "${MOD}"`. */
export const MOD: string = new URL("mod.ts", ROOT).href;
/** The testing entry point, for snippets to import. */
export const TESTING: string = new URL("src/testing/mod.ts", ROOT).href;

/** What `deno check` said. */
export interface CheckResult {
  /** Whether it passed. */
  readonly ok: boolean;
  /** Its whole output. */
  readonly output: string;
}

/** `deno check` of files (relative to `cwd`), with this project's configuration. */
export async function denoCheck(cwd: string, ...files: string[]): Promise<CheckResult> {
  const { success, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["check", "--quiet", "--config", new URL("deno.json", ROOT).pathname, ...files],
    cwd,
    env: { NO_COLOR: "1" },
  }).output();
  const text = new TextDecoder();
  return { ok: success, output: text.decode(stdout) + text.decode(stderr) };
}

/** One error of the compiler. */
export interface Diagnostic {
  /** The error code, e.g. `TS2345`. */
  readonly code: string;
  /** The first line of the message, as an editor shows it first. */
  readonly first: string;
  /** The whole message with the code excerpt and the location. */
  readonly text: string;
  /** The snippet it is in (its name without `.ts`), or `undefined` if elsewhere. */
  readonly snippet: string | undefined;
}

/** The outcome of {@link checkSnippets}: the diagnostics of each snippet. */
export interface SnippetsResult extends CheckResult {
  /** The errors, by snippet name; snippets without errors are absent. */
  readonly errors: ReadonlyMap<string, readonly Diagnostic[]>;
}

/** The errors of `deno check`'s output, each with the snippet (of `dir`) it points at. */
export function diagnostics(output: string, dir: string): Diagnostic[] {
  const blocks = output.split(/^(?=TS\d+ \[ERROR\]: )/m).filter((b) => /^TS\d+ /.test(b));
  return blocks.map((block) => {
    const [, code, first] = /^(TS\d+) \[ERROR\]: (.*)$/m.exec(block)!;
    const at = /^\s*at (file:\/\/\S+?):\d+:\d+$/m.exec(block)?.[1];
    const path = at === undefined ? undefined : new URL(at).pathname;
    const snippet = path?.startsWith(`${dir}/`)
      ? path.slice(dir.length + 1).replace(/\.ts$/, "")
      : undefined;
    const text = block.replace(/\n(Found \d+ errors?\.|error: Type checking failed\.)[\s\S]*$/, "");
    return { code, first: first.trim(), text: text.trimEnd(), snippet };
  });
}

/**
 * Type-check each snippet (name → code) with one `deno check`, beside `files` (name →
 * content, e.g. generated types the snippets import as `./types.ts`), in a temporary
 * directory removed afterwards.
 */
export async function checkSnippets(
  snippets: Readonly<Record<string, string>>,
  files: Readonly<Record<string, string>> = {},
): Promise<SnippetsResult> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "kopf-typecheck-" }));
  try {
    for (const [name, content] of Object.entries(files)) {
      await Deno.writeTextFile(`${dir}/${name}`, content);
    }
    for (const [name, code] of Object.entries(snippets)) {
      await Deno.writeTextFile(`${dir}/${name}.ts`, code);
    }
    const result = await denoCheck(dir, ...Object.keys(snippets).map((name) => `${name}.ts`));
    const errors = new Map<string, Diagnostic[]>();
    for (const diagnostic of diagnostics(result.output, dir)) {
      const key = diagnostic.snippet ?? "";
      errors.set(key, [...(errors.get(key) ?? []), diagnostic]);
    }
    return { ...result, errors };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
