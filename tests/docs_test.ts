/**
 * The TypeScript in the documentation compiles: every ```ts (or ```typescript) block of
 * README.md and docs/*.md is type-checked with `deno check`, and a failure names the
 * markdown file and line of the failing code.
 *
 * The convention for the blocks:
 *
 * - A block is a complete module, checked on its own: it imports what it uses.
 * - `@kopf/kopf` and its entry points (`@kopf/kopf/testing`, `/client`, `/cli`) are this
 *   checkout's modules; the packages of deno.json's `imports` (`yaml`, …) are there too.
 * - `./types.ts` is what `kopf types examples/crd.yaml` prints (`KopfExampleV1`, …), and
 *   `./crd.yaml` and `./operator.ts` exist beside the block (for tests reading them).
 * - A block that is only a fragment says so in its info string, ```ts ignore, and is not
 *   checked; there may be at most {@link MAX_IGNORED} of them in all, so they stay rare.
 *
 * The same holds for the `@example` blocks of the `kopf` namespace's values: each value that
 * `src/kopf.ts` exports (and each member of one typed by an interface, as `kopf.on.create`)
 * has an `@example` with a ```ts block, checked the same way.
 */
import ts from "typescript";
import { assert, assertEquals, assertStringIncludes } from "./assert.ts";
import { generateTypesFromYaml } from "../src/commands/types.ts";

const ROOT = new URL("../", import.meta.url);

/** How many blocks may be marked `ts ignore` across all the documentation. */
const MAX_IGNORED = 3;

/** A TypeScript block of a markdown file. */
interface Block {
  /** The markdown file, relative to the repository, e.g. `docs/testing.md`. */
  readonly file: string;
  /** The line of the opening fence (1-based). */
  readonly line: number;
  /** The code. */
  readonly code: string;
  /** Whether it is marked as a fragment (`ts ignore`). */
  readonly ignored: boolean;
}

/** The TypeScript blocks of a markdown text, in order. */
function blocksOf(file: string, markdown: string): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([^`\s]*)\s*(.*)$/.exec(lines[i]);
    if (!open) continue;
    const [, indent, fence, language, rest] = open;
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !lines[j].trimStart().startsWith(fence)) {
      body.push(lines[j].startsWith(indent) ? lines[j].slice(indent.length) : lines[j]);
      j++;
    }
    if (language === "ts" || language === "typescript") {
      const ignored = rest.split(/\s+/).includes("ignore");
      blocks.push({ file, line: i + 1, code: body.join("\n") + "\n", ignored });
    }
    i = j;
  }
  return blocks;
}

/** The markdown files of the documentation, relative to the repository. */
async function markdownFiles(): Promise<string[]> {
  const files = ["README.md"];
  for await (const entry of Deno.readDir(new URL("docs/", ROOT))) {
    if (entry.isFile && entry.name.endsWith(".md")) files.push(`docs/${entry.name}`);
  }
  return files.sort();
}

/** A failure of `deno check`, mapped back to the markdown. */
interface Failure {
  /** `file:line` of the failing code in the markdown. */
  readonly where: string;
  /** The compiler's message. */
  readonly message: string;
}

/** The import map under which the blocks are checked: this checkout as `@kopf/kopf`. */
async function checkConfig(): Promise<Record<string, unknown>> {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT)));
  const imports: Record<string, string> = { ...config.imports };
  for (const [entry, path] of Object.entries(config.exports as Record<string, string>)) {
    imports[`@kopf/kopf${entry.slice(1)}`] = new URL(path, ROOT).href;
  }
  return { imports, compilerOptions: config.compilerOptions, lock: false };
}

/**
 * Type-check the blocks (those not ignored) in one `deno check` in a directory of their
 * own; the failures, each naming the markdown line of the code it is about.
 */
async function checkBlocks(blocks: readonly Block[]): Promise<Failure[]> {
  const dir = await Deno.makeTempDir({ prefix: "docs-blocks-" });
  try {
    await Deno.writeTextFile(`${dir}/deno.json`, JSON.stringify(await checkConfig()));
    const crd = await Deno.readTextFile(new URL("examples/crd.yaml", ROOT));
    await Deno.writeTextFile(`${dir}/crd.yaml`, crd);
    await Deno.writeTextFile(`${dir}/types.ts`, generateTypesFromYaml(crd, "crd.yaml"));
    await Deno.writeTextFile(`${dir}/operator.ts`, "export {};\n");
    const byName = new Map<string, Block>();
    for (const block of blocks) {
      if (block.ignored) continue;
      const name = `${block.file.replace(/[^A-Za-z0-9]+/g, "_")}_${block.line}.ts`;
      byName.set(name, block);
      await Deno.writeTextFile(`${dir}/${name}`, block.code);
    }
    if (byName.size === 0) return [];
    const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["check", "--quiet", "--config", `${dir}/deno.json`, ...byName.keys()],
      cwd: dir,
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const output = new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
    const failures: Failure[] = [];
    let message = "";
    for (const line of output.split("\n")) {
      if (/^TS\d+ \[ERROR\]/.test(line) || /^error: /.test(line)) message = line;
      const at = /at file:\/\/\S*\/([^/\s]+\.ts):(\d+):\d+/.exec(line);
      const block = at ? byName.get(at[1]) : undefined;
      if (at && block) {
        failures.push({ where: `${block.file}:${block.line + Number(at[2])}`, message });
      }
    }
    if (code !== 0 && failures.length === 0) {
      failures.push({ where: "(unknown)", message: output.trim() });
    }
    return failures;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function report(failures: readonly Failure[]): string {
  return failures.map((f) => `${f.where}: ${f.message}`).join("\n");
}

Deno.test("every TypeScript block of README.md and docs/*.md type-checks", async () => {
  const blocks: Block[] = [];
  for (const file of await markdownFiles()) {
    blocks.push(...blocksOf(file, await Deno.readTextFile(new URL(file, ROOT))));
  }
  const checked = blocks.filter((b) => !b.ignored);
  assert(checked.length >= 15, `only ${checked.length} blocks found: is the extraction broken?`);
  const ignored = blocks.filter((b) => b.ignored).map((b) => `${b.file}:${b.line}`);
  assert(
    ignored.length <= MAX_IGNORED,
    `${ignored.length} blocks are marked "ts ignore" (at most ${MAX_IGNORED}): ` +
      `make them complete modules instead: ${ignored.join(", ")}`,
  );
  const failures = await checkBlocks(blocks);
  assertEquals(failures, [], `\n${report(failures)}`);
});

Deno.test("the block check names the file and line of a failing block, and skips fragments", async () => {
  const sample = [
    "# Sample", //                                              line 1
    "", //                                                      line 2
    "```ts", //                                                 line 3
    'import { kopf } from "@kopf/kopf";', //                   line 4
    'kopf.on.create("kopfexamples", ({ spec }) => spec);', //  line 5
    "```", //                                                   line 6
    "", //                                                      line 7
    "```typescript", //                                         line 8
    'import { kopf } from "@kopf/kopf";', //                   line 9
    "", //                                                      line 10
    'kopf.on.create("kopfexamples", ({ spex }) => spex);', //  line 11
    "```", //                                                   line 12
    "", //                                                      line 13
    "```ts ignore", //                                          line 14
    "this is not TypeScript at all", //                        line 15
    "```", //                                                   line 16
    "", //                                                      line 17
    "```sh", //                                                 line 18
    "echo not checked", //                                      line 19
    "```", //                                                   line 20
  ].join("\n");
  const blocks = blocksOf("sample.md", sample);
  assertEquals(blocks.map((b) => [b.line, b.ignored]), [[3, false], [8, false], [14, true]]);
  const failures = await checkBlocks(blocks);
  assertEquals(failures.map((f) => f.where), ["sample.md:11"], report(failures));
  assertStringIncludes(failures[0].message, "spex");
});

/** One runtime value of the `kopf` namespace (or a member of one), with its doc's examples. */
interface KopfValue {
  /** How users reach it, e.g. `kopf.on.create`. */
  readonly name: string;
  /** Where it is declared: `src/….ts:line`. */
  readonly where: string;
  /** The TypeScript blocks of its `@example` tags (a tag without one is an empty list). */
  readonly examples: readonly Block[];
  /** How many `@example` tags its doc comment has. */
  readonly tags: number;
}

/** The `@example` tags of a declaration's doc comment, and their TypeScript blocks. */
function examplesOf(
  node: ts.Node,
  source: ts.SourceFile,
  file: string,
): { tags: number; examples: Block[] } {
  const tags = ts.getJSDocTags(node).filter((tag) => tag.tagName.text === "example");
  const examples: Block[] = [];
  for (const tag of tags) {
    const first = source.getLineAndCharacterOfPosition(tag.getStart(source)).line;
    // The tag's lines as written, without the comment's leading ` * `.
    const text = source.text.slice(tag.getStart(source), tag.getEnd())
      .split("\n").map((line) => line.replace(/^\s*\* ?/, "")).join("\n");
    for (const block of blocksOf(file, text)) {
      examples.push({ ...block, line: block.line + first });
    }
  }
  return { tags: tags.length, examples };
}

/** Parsed modules of the repository, by path. */
const parsed = new Map<string, ts.SourceFile>();

async function parse(path: string): Promise<ts.SourceFile> {
  let source = parsed.get(path);
  if (source === undefined) {
    const text = await Deno.readTextFile(new URL(path, ROOT));
    source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
    parsed.set(path, source);
  }
  return source;
}

const isExported = (node: ts.Node): boolean =>
  ts.canHaveModifiers(node) &&
  (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);

/** The path of a relative import from `from`, relative to the repository. */
const pathFrom = (from: string, spec: string): string =>
  new URL(spec, new URL(from, ROOT)).href.slice(ROOT.href.length);

/** Where a module imports a name from, if it does (`import { name } from "…"`). */
function importOf(source: ts.SourceFile, name: string): ts.Expression | undefined {
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement)) continue;
    const bindings = statement.importClause?.namedBindings;
    if (bindings === undefined || !ts.isNamedImports(bindings)) continue;
    const element = bindings.elements.find((e) => e.name.text === name);
    if (element !== undefined && element.propertyName === undefined) {
      return statement.moduleSpecifier;
    }
  }
  return undefined;
}

/** The interface a module declares, or imports, under a name. */
async function interfaceOf(
  path: string,
  source: ts.SourceFile,
  name: string,
): Promise<Members | undefined> {
  const node = source.statements.find((s): s is ts.InterfaceDeclaration =>
    ts.isInterfaceDeclaration(s) && s.name.text === name
  );
  if (node !== undefined) return { path, source, node };
  const spec = importOf(source, name);
  if (spec === undefined) return undefined;
  const found = await declarationOf(pathFrom(path, (spec as ts.StringLiteral).text), name);
  return ts.isInterfaceDeclaration(found.node)
    ? { path: found.path, source: found.source, node: found.node }
    : undefined;
}

/** An interface and where it is declared. */
interface Members {
  readonly path: string;
  readonly source: ts.SourceFile;
  readonly node: ts.InterfaceDeclaration;
}

/**
 * The declaration of an exported name of a module (following re-exports), and, for a
 * constant typed as an interface (its own or imported), that interface (its members are
 * values users reach too: `kopf.on.create`).
 */
async function declarationOf(
  path: string,
  name: string,
): Promise<
  { path: string; source: ts.SourceFile; node: ts.Node; members?: Members }
> {
  const source = await parse(path);
  for (const statement of source.statements) {
    if (
      ts.isExportDeclaration(statement) && statement.exportClause !== undefined &&
      ts.isNamedExports(statement.exportClause)
    ) {
      for (const element of statement.exportClause.elements) {
        if (element.name.text !== name) continue;
        const local = element.propertyName?.text ?? name;
        const spec = statement.moduleSpecifier ?? importOf(source, local);
        if (spec === undefined) continue; // declared in this module: found below
        return declarationOf(pathFrom(path, (spec as ts.StringLiteral).text), local);
      }
    }
    if (!isExported(statement)) continue;
    if (
      (ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement) ||
        ts.isEnumDeclaration(statement) || ts.isInterfaceDeclaration(statement)) &&
      statement.name?.text === name
    ) {
      return { path, source, node: statement };
    }
    if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        if (!ts.isIdentifier(declaration.name) || declaration.name.text !== name) continue;
        const type = declaration.type;
        const typeName = type !== undefined && ts.isTypeReferenceNode(type)
          ? type.typeName.getText(source)
          : undefined;
        const members = typeName === undefined
          ? undefined
          : await interfaceOf(path, source, typeName);
        return { path, source, node: declaration, members };
      }
    }
  }
  // A type alias last: a name that is also a value (`Reason`) is declared by the value.
  const alias = source.statements.find((s): s is ts.TypeAliasDeclaration =>
    ts.isTypeAliasDeclaration(s) && isExported(s) && s.name.text === name
  );
  if (alias !== undefined) return { path, source, node: alias };
  throw new Error(`${path} exports no declaration of ${name}`);
}

/**
 * Every runtime value of the `kopf` namespace (src/kopf.ts), and the members of those typed by
 * an interface of their module.
 */
async function kopfValues(): Promise<KopfValue[]> {
  const values: KopfValue[] = [];
  const where = (path: string, source: ts.SourceFile, node: ts.Node) =>
    `${path}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`;
  const namespace = await parse("src/kopf.ts");
  for (const statement of namespace.statements) {
    if (!ts.isExportDeclaration(statement) || statement.isTypeOnly) continue;
    const spec = (statement.moduleSpecifier as ts.StringLiteral).text;
    const clause = statement.exportClause as ts.NamedExports;
    for (const element of clause.elements) {
      const found = await declarationOf(
        pathFrom("src/kopf.ts", spec),
        element.propertyName?.text ?? element.name.text,
      );
      const name = `kopf.${element.name.text}`;
      values.push({
        name,
        where: where(found.path, found.source, found.node),
        ...examplesOf(found.node, found.source, found.path),
      });
      const members = found.members;
      for (const member of members?.node.members ?? []) {
        if (members === undefined || !ts.isPropertySignature(member)) continue;
        values.push({
          name: `${name}.${member.name.getText(members.source)}`,
          where: where(members.path, members.source, member),
          ...examplesOf(member, members.source, members.path),
        });
      }
    }
  }
  return values;
}

Deno.test("every value of the kopf namespace has an @example, and the examples type-check", async () => {
  const values = await kopfValues();
  assert(values.length >= 120, `only ${values.length} values found: is the extraction broken?`);
  assert(values.some((v) => v.name === "kopf.on.create"), "the members of kopf.on are values");
  const missing = values.filter((v) => v.tags === 0 || v.examples.length < v.tags)
    .map((v) => `${v.where}: ${v.name}`);
  assertEquals(missing, [], "values without an @example with a ```ts block");
  const failures = await checkBlocks(values.flatMap((v) => v.examples));
  assertEquals(failures, [], `\n${report(failures)}`);
});

Deno.test("the example check finds the examples of a declaration, at their lines", async () => {
  const text = [
    "/**", //                                  line 1
    " * A value.", //                          line 2
    " *", //                                   line 3
    " * @example Use it", //                   line 4
    " * ```ts", //                             line 5
    ' * import { kopf } from "@kopf/kopf";', // line 6
    ' * kopf.on.create("kex", ({ spex }) => spex);', // line 7
    " * ```", //                               line 8
    " */", //                                  line 9
    "export const a = 1;", //                  line 10
    "/** No example. */", //                   line 11
    "export function b(): void {}", //         line 12
  ].join("\n");
  const source = ts.createSourceFile("x.ts", text, ts.ScriptTarget.Latest, true);
  const [a, b] = source.statements;
  const declaration = (a as ts.VariableStatement).declarationList.declarations[0];
  const found = examplesOf(declaration, source, "x.ts");
  assertEquals([found.tags, found.examples.map((e) => e.line)], [1, [5]]);
  assertEquals(examplesOf(b, source, "x.ts"), { tags: 0, examples: [] });
  const failures = await checkBlocks(found.examples);
  assertEquals(failures.map((f) => f.where), ["x.ts:7"], report(failures));
});

/** The anchor GitHub gives a heading: lowercase, punctuation dropped, spaces to dashes. */
function slugOf(heading: string): string {
  return heading.trim().toLowerCase().replace(/`/g, "").replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");
}

/** The anchors of a markdown text's headings. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*(`{3,}|~{3,})/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*)$/.exec(line);
    if (heading) anchors.add(slugOf(heading[1]));
  }
  return anchors;
}

/**
 * The broken links among the relative links of the markdown files (`[text](path#anchor)`)
 * and the mentions of `README.md#…`/`docs/….md#…` in the sources: each as `file: link`.
 */
async function brokenLinks(files: readonly string[], root: URL = ROOT): Promise<string[]> {
  const broken: string[] = [];
  const texts = new Map<string, string>();
  const read = async (path: string) => {
    if (!texts.has(path)) {
      texts.set(path, await Deno.readTextFile(new URL(path, root)).catch(() => ""));
    }
    return texts.get(path)!;
  };
  for (const file of files) {
    const text = await read(file);
    const links = file.endsWith(".md")
      ? [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1])
      : [...text.matchAll(/(?:README|docs\/[\w-]+)\.md#[\w-]+/g)].map((m) => m[0]);
    for (const link of links) {
      if (/^[a-z]+:/.test(link)) continue; // https:, mailto:
      const [path, anchor] = link.split("#");
      const base = file.endsWith(".md") ? new URL(file, root) : root;
      const target = path === "" ? file : new URL(path, base).href.slice(root.href.length);
      const content = await read(target);
      if (content === "") broken.push(`${file}: ${link} (no such file)`);
      else if (anchor && target.endsWith(".md") && !anchorsOf(content).has(anchor)) {
        broken.push(`${file}: ${link} (no such heading)`);
      }
    }
  }
  return broken;
}

Deno.test("every relative link of the documentation, and of the sources, resolves", async () => {
  const sources: string[] = [];
  for (const dir of ["src", "scripts", "examples"]) {
    const walk = async (path: string) => {
      for await (const entry of Deno.readDir(new URL(path, ROOT))) {
        const child = `${path}/${entry.name}`;
        if (entry.isDirectory) await walk(child);
        else if (entry.name.endsWith(".ts")) sources.push(child);
      }
    };
    await walk(dir);
  }
  assertEquals(await brokenLinks([...await markdownFiles(), ...sources]), []);
  // And the check sees a broken link where there is one.
  assertEquals(slugOf("Metrics, readiness and tracing"), "metrics-readiness-and-tracing");
  assertEquals(slugOf("`kopf init`"), "kopf-init");
  const dir = await Deno.makeTempDir({ prefix: "links-" });
  try {
    await Deno.writeTextFile(`${dir}/a.md`, "# Top\n\n[ok](#top) [bad](#nowhere) [gone](b.md)\n");
    assertEquals(await brokenLinks(["a.md"], new URL(`file://${dir}/`)), [
      "a.md: #nowhere (no such heading)",
      "a.md: b.md (no such file)",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
