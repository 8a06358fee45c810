/**
 * The shape of the source (docs/architecture.md): no function longer than 100 lines and no
 * class longer than 400 (the fake cluster's data tables aside); no module longer than 600
 * lines (the fake cluster aside), no runnable longer than 150 (a runnable
 * wires, it decides nothing), and no optional `left` flag on the reactor's types (leaving a
 * selection is an event type of its own); one file name per concept
 * (the fake cluster, which mirrors the API server's own concepts, aside); no `@internal`
 * member on an exported class; no character beyond ASCII.
 */
import ts from "typescript";
import { assertEquals } from "./assert.ts";

const SRC = new URL("../src/", import.meta.url);
const MAX_FUNCTION_LINES = 100;
const MAX_CLASS_LINES = 400;
const MAX_MODULE_LINES = 600;
const MAX_RUNNABLE_LINES = 150;

/** Functions that are data tables, not logic, as `path name` keys. */
const DATA_TABLES: ReadonlySet<string> = new Set([
  "catalog/builtin_types.ts builtinTypes",
]);

/** What is still too long, as `path name` keys: each is a debt, and this list only shrinks. */
const KNOWN_LONG: ReadonlySet<string> = new Set([]);

async function* walk(dir: URL): AsyncGenerator<URL> {
  for await (const entry of Deno.readDir(dir)) {
    const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
    if (entry.isDirectory) yield* walk(url);
    else if (entry.name.endsWith(".ts")) yield url;
  }
}

function pathOf(url: URL): string {
  return url.pathname.slice(SRC.pathname.length);
}

/** The functions and classes of a module longer than allowed, as `path name` keys. */
export function tooLong(path: string, text: string): string[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const lines = (node: ts.Node) =>
    source.getLineAndCharacterOfPosition(node.getEnd()).line -
    source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const nameOf = (node: ts.Node): string => {
    const name = (node as { name?: ts.Node }).name;
    if (name !== undefined) return name.getText(source);
    const parent = node.parent;
    if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) {
      return parent.name.getText(source);
    }
    return "<anonymous>";
  };
  const visit = (node: ts.Node) => {
    if (ts.isClassDeclaration(node) || ts.isClassExpression(node)) {
      if (lines(node) > MAX_CLASS_LINES) found.push(`${path} class ${nameOf(node)}`);
    } else if (ts.isFunctionLike(node) && (node as { body?: ts.Node }).body !== undefined) {
      const key = `${path} ${nameOf(node)}`;
      if (lines(node) > MAX_FUNCTION_LINES && !DATA_TABLES.has(key)) found.push(key);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

Deno.test("no function over 100 lines and no class over 400 lines in src/", async () => {
  const found: string[] = [];
  for await (const file of walk(SRC)) {
    found.push(...tooLong(pathOf(file), await Deno.readTextFile(file)));
  }
  assertEquals(found.filter((key) => !KNOWN_LONG.has(key)).sort(), []);
  // A debt paid is struck off the list, so that it cannot come back unnoticed.
  assertEquals([...KNOWN_LONG].filter((key) => !found.includes(key)).sort(), []);
});

/** The modules longer than their limit, as `path: lines` entries. */
export function longModules(path: string, text: string): string[] {
  if (path.startsWith("testing/fake_cluster/")) return [];
  const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
  const limit = path.startsWith("reactor/runnables/") ? MAX_RUNNABLE_LINES : MAX_MODULE_LINES;
  return lines > limit ? [`${path}: ${lines} lines, over ${limit}`] : [];
}

Deno.test("no module over 600 lines, and no runnable over 150, in src/", async () => {
  const found: string[] = [];
  for await (const file of walk(SRC)) {
    found.push(...longModules(pathOf(file), await Deno.readTextFile(file)));
  }
  assertEquals(found.sort(), []);
});

Deno.test("the module length check sees a long module and a long runnable", () => {
  const lines = (n: number) => "const a = 1;\n".repeat(n);
  assertEquals(longModules("x.ts", lines(600)), []);
  assertEquals(longModules("x.ts", lines(601)), ["x.ts: 601 lines, over 600"]);
  assertEquals(longModules("reactor/runnables/r.ts", lines(151)), [
    "reactor/runnables/r.ts: 151 lines, over 150",
  ]);
  assertEquals(longModules("testing/fake_cluster/f.ts", lines(900)), []);
});

Deno.test("no optional left flag in src/: leaving a selection is an event type", async () => {
  const found: string[] = [];
  for await (const file of walk(SRC)) {
    const text = await Deno.readTextFile(file);
    if (/\bleft\?:/.test(text)) found.push(pathOf(file));
  }
  assertEquals(found, []);
});

Deno.test("the length check itself sees a long function and a long class", () => {
  const body = (n: number) =>
    Array.from({ length: n }, (_, i) => `  const a${i} = ${i};`).join("\n");
  assertEquals(tooLong("x.ts", `function f() {\n${body(98)}\n}`), []);
  assertEquals(tooLong("x.ts", `function f() {\n${body(99)}\n}`), ["x.ts f"]);
  assertEquals(tooLong("x.ts", `const g = () => {\n${body(99)}\n};`), ["x.ts g"]);
  const methods = Array.from({ length: 5 }, (_, i) => `  m${i}() {\n${body(80)}\n  }`);
  assertEquals(tooLong("x.ts", `class C {\n${methods.join("\n")}\n}`), ["x.ts class C"]);
});

Deno.test("no two modules of src/ share a file name (but mod.ts and the fake cluster's)", async () => {
  const byName = new Map<string, string[]>();
  for await (const file of walk(SRC)) {
    const path = pathOf(file);
    if (path.startsWith("testing/fake_cluster/")) continue;
    const name = path.slice(path.lastIndexOf("/") + 1);
    if (name === "mod.ts") continue;
    byName.set(name, [...byName.get(name) ?? [], path]);
  }
  const shared = [...byName.values()].filter((paths) => paths.length > 1);
  assertEquals(shared, []);
});

/** Exported classes with members marked `@internal`, as `path Class.member` keys. */
export function internalMembers(path: string, text: string): string[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  for (const statement of source.statements) {
    if (!ts.isClassDeclaration(statement) || statement.name === undefined) continue;
    const exported = statement.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    if (!exported) continue;
    for (const member of statement.members) {
      const tags = ts.getJSDocTags(member).map((tag) => tag.tagName.text);
      if (tags.includes("internal")) {
        found.push(`${path} ${statement.name.text}.${member.name?.getText(source) ?? "?"}`);
      }
    }
  }
  return found;
}

Deno.test("no exported class of src/ has members marked @internal", async () => {
  const found: string[] = [];
  for await (const file of walk(SRC)) {
    found.push(...internalMembers(pathOf(file), await Deno.readTextFile(file)));
  }
  const classes = [...new Set(found.map((key) => key.slice(0, key.lastIndexOf("."))))].sort();
  assertEquals(classes, KNOWN_INTERNAL);
});

/** Classes that still carry `@internal` members: debts, and this list only shrinks. */
const KNOWN_INTERNAL: readonly string[] = [];

Deno.test("the @internal check itself sees a marked member", () => {
  const text =
    "export class A {\n  /** @internal */\n  f(): void {}\n}\nclass B {\n  /** @internal */\n  g(): void {}\n}";
  assertEquals(internalMembers("a.ts", text), ["a.ts A.f"]);
});

/**
 * Where a module has a character beyond ASCII, as `path:line:column U+XXXX`. The runtime
 * hands V8 a module of ASCII as it is; one with any other character is copied into V8's
 * heap as two bytes per character (docs/performance.md, "Start-up"): literals spell such
 * characters as `\u` escapes, comments in ASCII.
 */
export function beyondAscii(path: string, text: string): string[] {
  const found: string[] = [];
  const lines = text.split("\n");
  for (let line = 0; line < lines.length; line++) {
    for (let column = 0; column < lines[line].length; column++) {
      const code = lines[line].charCodeAt(column);
      if (code <= 0x7f) continue;
      const hex = code.toString(16).toUpperCase().padStart(4, "0");
      found.push(`${path}:${line + 1}:${column + 1} U+${hex}`);
    }
  }
  return found;
}

Deno.test("the modules of src/ and mod.ts are ASCII", async () => {
  const found = beyondAscii("mod.ts", await Deno.readTextFile(new URL("../mod.ts", SRC)));
  for await (const file of walk(SRC)) {
    found.push(...beyondAscii(pathOf(file), await Deno.readTextFile(file)));
  }
  assertEquals(found, []);
});

Deno.test("the ASCII check itself sees a dash and a micro sign, and not their escapes", () => {
  const text = 'const a = "\\u2014";\n// a \u2014 b\nconst b = "5 \u00b5s";';
  assertEquals(beyondAscii("a.ts", text), ["a.ts:2:6 U+2014", "a.ts:3:14 U+00B5"]);
});
