/**
 * Rendering a Helm chart of `kopf manifests --helm` without Helm (there is none here): the
 * few Go-template constructs that the generator writes, evaluated as Helm evaluates them,
 * and nothing else — any other construct is refused, so a template that starts using one
 * fails the tests until this learns it (and its Helm semantics are checked).
 *
 * What is followed from Helm 3 (and Go's text/template, sprig):
 *
 * - trim markers: `{{-` drops the whitespace before the action, `-}}` the whitespace after
 *   it, newlines included; `{{/* … *\/}}` is a comment;
 * - `define "NAME"` … `end` defines a template of any file (those of `templates/` whose
 *   name starts with `_` yield no documents); `include "NAME" .` renders it as a string;
 * - `if` is false for `false`, `0`, `""`, `null`, and empty lists and maps;
 * - pipelines: `|` passes a value as the last argument of the next function; `( … )`
 *   groups one; string literals in double quotes;
 * - `default D V` (sprig): `V` unless empty, else `D`; `or A B`: the first non-empty one,
 *   else the last; `quote V` (sprig): `V` as a string in double quotes, nothing for `null`;
 *   `printf` with `%s` (Go's fmt); `trunc N S`: the first N characters (sprig);
 *   `trimSuffix X S`: S without the suffix X (Go's strings.TrimSuffix); `contains X S`:
 *   whether S holds X (sprig: strings.Contains(S, X));
 * - `toYaml V`: YAML with the keys of maps sorted and lists not indented under their key,
 *   as sigs.k8s.io/yaml writes it, without the last newline; `nindent N S`: a newline,
 *   then `S` with every line indented by `N` spaces;
 * - `.Values`, `.Release.Name`, `.Release.Namespace`, `.Chart.Name`, `.Chart.Version` and
 *   `.Chart.AppVersion` (from Chart.yaml); a missing value prints as nothing (Helm removes
 *   Go's `<no value>`);
 * - the documents: the files of `crds/` as they are, first (as with `--include-crds`), then
 *   the rendered templates' documents (split at `---` lines, trimmed, empty ones dropped)
 *   in the order of their files' paths, sorted stably by kind in Helm's install order,
 *   kinds Helm does not know last (by kind). `NOTES.txt` is rendered apart.
 */
import { parse as parseYaml, stringify } from "yaml";
import type { ChartFile } from "../../src/commands/helm_chart.ts";

/** The constructs that this renderer knows: what the generator may write. */
export const CONSTRUCTS: readonly string[] = [
  ".Values",
  ".Release.Name",
  ".Release.Namespace",
  ".Chart.Name",
  ".Chart.AppVersion",
  "define",
  "include",
  "if",
  "else if",
  "else",
  "end",
  "or",
  "default",
  "quote",
  "toYaml",
  "nindent",
  "printf",
  "trunc",
  "trimSuffix",
  "contains",
];

/** Helm's install order of the kinds (releaseutil's InstallOrder), those that matter here. */
const INSTALL_ORDER = [
  "Namespace",
  "NetworkPolicy",
  "ResourceQuota",
  "LimitRange",
  "PodSecurityPolicy",
  "PodDisruptionBudget",
  "ServiceAccount",
  "Secret",
  "ConfigMap",
  "StorageClass",
  "PersistentVolume",
  "PersistentVolumeClaim",
  "CustomResourceDefinition",
  "ClusterRole",
  "ClusterRoleBinding",
  "Role",
  "RoleBinding",
  "Service",
  "DaemonSet",
  "Pod",
  "ReplicationController",
  "ReplicaSet",
  "Deployment",
];

type Value = unknown;

/** What the templates see: `.` (the values, the release, the chart) and the defines. */
export interface RenderContext {
  readonly values: Record<string, Value>;
  readonly releaseNamespace: string;
  /** The release's name (`helm install NAME`); the chart's name unless given. */
  readonly releaseName?: string;
  /** Chart.yaml's `name`, `version` and `appVersion`. */
  readonly chart?: {
    readonly name?: string;
    readonly version?: string;
    readonly appVersion?: string;
  };
  /** The templates that `define` made, by name. */
  readonly defines?: Map<string, Node[]>;
}

/** A piece of a parsed template. */
type Node =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "output"; readonly pipeline: string }
  | { readonly type: "define"; readonly name: string; readonly body: Node[] }
  | {
    readonly type: "if";
    readonly branches: { readonly condition: string; readonly body: Node[] }[];
    readonly otherwise: Node[];
  };

/** The actions of a template, `{{ … }}`, with their trim markers applied to the text. */
function tokens(text: string): ({ text: string } | { action: string })[] {
  const found: ({ text: string } | { action: string })[] = [];
  let rest = text;
  let trimNext = false;
  for (;;) {
    const start = rest.indexOf("{{");
    if (start < 0) break;
    const end = rest.indexOf("}}", start);
    if (end < 0) throw new Error(`An unclosed action in: ${rest.slice(start, start + 40)}`);
    let inner = rest.slice(start + 2, end);
    let before = rest.slice(0, start);
    if (trimNext) before = before.replace(/^\s+/, "");
    if (inner.startsWith("- ")) before = before.replace(/\s+$/, "");
    trimNext = inner.endsWith(" -");
    inner = inner.replace(/^- /, "").replace(/ -$/, "").trim();
    found.push({ text: before });
    if (!/^\/\*[\s\S]*\*\/$/.test(inner)) found.push({ action: inner });
    rest = rest.slice(end + 2);
  }
  found.push({ text: trimNext ? rest.replace(/^\s+/, "") : rest });
  return found;
}

const KEYWORD = /^(if|else if|else|end|define)\b\s*(.*)$/;

/** The template as a tree of text, outputs, conditionals and defines. */
export function parseTemplate(text: string): Node[] {
  const list = tokens(text);
  let i = 0;
  /** Nodes up to the next `else if`, `else` or `end` (or the end of the text). */
  const block = (): { nodes: Node[]; stop?: { keyword: string; condition: string } } => {
    const nodes: Node[] = [];
    while (i < list.length) {
      const token = list[i++];
      if ("text" in token) {
        if (token.text !== "") nodes.push({ type: "text", text: token.text });
        continue;
      }
      const keyword = KEYWORD.exec(token.action);
      if (keyword === null) {
        nodes.push({ type: "output", pipeline: token.action });
      } else if (keyword[1] === "define") {
        const name = /^"([^"]+)"$/.exec(keyword[2])?.[1];
        if (name === undefined) throw new Error(`define needs a quoted name: ${keyword[2]}`);
        const inner = block();
        if (inner.stop?.keyword !== "end") throw new Error(`define ${name} without its end`);
        nodes.push({ type: "define", name, body: inner.nodes });
      } else if (keyword[1] !== "if") {
        return { nodes, stop: { keyword: keyword[1], condition: keyword[2] } };
      } else {
        const branches = [{ condition: keyword[2], body: [] as Node[] }];
        let inner = block();
        branches[0].body = inner.nodes;
        while (inner.stop?.keyword === "else if") {
          const condition = inner.stop.condition;
          inner = block();
          branches.push({ condition, body: inner.nodes });
        }
        let otherwise: Node[] = [];
        if (inner.stop?.keyword === "else") {
          inner = block();
          otherwise = inner.nodes;
        }
        if (inner.stop?.keyword !== "end") throw new Error("An if without its end");
        nodes.push({ type: "if", branches, otherwise });
      }
    }
    return { nodes };
  };
  const top = block();
  if (top.stop) throw new Error(`{{ ${top.stop.keyword} }} outside of an if`);
  return top.nodes;
}

/** The words of a pipeline: string literals, parentheses, `|`, and the rest. */
function pipelineWords(pipeline: string): string[] {
  return [...pipeline.matchAll(/"(?:[^"\\]|\\.)*"|[()|]|[^\s()|]+/g)].map((m) => m[0]);
}

/** The constructs that a template uses (see {@link CONSTRUCTS}). */
export function constructsOf(text: string): Set<string> {
  const found = new Set<string>();
  for (const token of tokens(text)) {
    if (!("action" in token)) continue;
    const keyword = KEYWORD.exec(token.action);
    if (keyword) found.add(keyword[1]);
    if (keyword?.[1] === "define") continue;
    const pipeline = keyword ? keyword[2] : token.action;
    for (const word of pipelineWords(pipeline)) {
      if (word.startsWith(".Values.")) found.add(".Values");
      else if (/^(\d+|".*"|[()|.])$/.test(word)) continue;
      else found.add(word);
    }
  }
  return found;
}

/** Whether Go's templates take a value as true. */
function truthy(value: Value): boolean {
  if (value === undefined || value === null || value === false || value === 0 || value === "") {
    return false;
  }
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "object") return Object.keys(value as object).length > 0;
  return true;
}

/** `toYaml` as Helm writes YAML: sorted keys, lists not indented, no last newline. */
export function helmToYaml(value: Value): string {
  return stringify(value, { sortMapEntries: true, indentSeq: false, lineWidth: 0 })
    .replace(/\n$/, "");
}

/** `.`: the root of what the templates see; `include` passes it on. */
const ROOT_CONTEXT = Symbol("the root context");

const FUNCTIONS: Record<string, (context: RenderContext, ...args: Value[]) => Value> = {
  or: (_, ...args) => args.find(truthy) ?? args.at(-1),
  default: (_, fallback, given) => truthy(given) ? given : fallback,
  quote: (_, value) => value === null || value === undefined ? "" : JSON.stringify(String(value)),
  toYaml: (_, value) => helmToYaml(value ?? null),
  nindent: (_, spaces, text) => {
    const pad = " ".repeat(Number(spaces));
    return "\n" + pad + String(text).replaceAll("\n", "\n" + pad);
  },
  printf: (_, format, ...args) => {
    let i = 0;
    const out = String(format).replace(/%(.)/g, (_, verb) => {
      if (verb !== "s") throw new Error(`printf %${verb} is not among the constructs`);
      return String(args[i++]);
    });
    if (i !== args.length) throw new Error(`printf ${format}: ${args.length} arguments`);
    return out;
  },
  trunc: (_, count, text) => String(text).slice(0, Number(count)),
  trimSuffix: (_, suffix, text) =>
    String(text).endsWith(String(suffix))
      ? String(text).slice(0, String(text).length - String(suffix).length)
      : String(text),
  contains: (_, part, text) => String(text).includes(String(part)),
  include: (context, name, data) => {
    if (data !== ROOT_CONTEXT) throw new Error(`include ${name} with another context than .`);
    const body = context.defines?.get(String(name));
    if (body === undefined) throw new Error(`include ${name}: no such template`);
    return renderNodes(body, context);
  },
};

function argument(word: string, context: RenderContext): Value {
  if (/^\d+$/.test(word)) return Number(word);
  if (/^".*"$/.test(word)) return JSON.parse(word);
  if (word === ".") return ROOT_CONTEXT;
  const fixed: Record<string, Value> = {
    ".Release.Namespace": context.releaseNamespace,
    ".Release.Name": context.releaseName ?? context.chart?.name,
    ".Chart.Name": context.chart?.name,
    ".Chart.Version": context.chart?.version,
    ".Chart.AppVersion": context.chart?.appVersion,
  };
  if (word in fixed) return fixed[word];
  if (word.startsWith(".Values.")) {
    let value: Value = context.values;
    for (const key of word.slice(".Values.".length).split(".")) {
      value = (value as Record<string, Value> | undefined)?.[key];
    }
    return value;
  }
  throw new Error(`${word} is not among the constructs`);
}

/** The value of pipeline words from `at`: commands separated by `|`, up to `)` or the end. */
function evaluateWords(
  words: readonly string[],
  at: { i: number },
  context: RenderContext,
): Value {
  let value: Value = undefined;
  let first = true;
  for (;;) {
    const command: { word?: string; value: Value }[] = [];
    while (at.i < words.length && words[at.i] !== "|" && words[at.i] !== ")") {
      const word = words[at.i++];
      if (word === "(") {
        command.push({ value: evaluateWords(words, at, context) });
        if (words[at.i++] !== ")") throw new Error(`An unclosed ( in ${words.join(" ")}`);
      } else {
        command.push({ word, value: undefined });
      }
    }
    const [head, ...rest] = command;
    const args = rest.map((a) => a.word === undefined ? a.value : argument(a.word, context));
    if (!first) args.push(value);
    if (head?.word !== undefined && head.word in FUNCTIONS) {
      value = FUNCTIONS[head.word](context, ...args);
    } else if (first && rest.length === 0 && head !== undefined) {
      value = head.word === undefined ? head.value : argument(head.word, context);
    } else {
      throw new Error(`${head?.word} is not among the constructs`);
    }
    first = false;
    if (words[at.i] !== "|") return value;
    at.i++;
  }
}

/** The value of a pipeline. */
function evaluate(pipeline: string, context: RenderContext): Value {
  const words = pipelineWords(pipeline);
  const at = { i: 0 };
  const value = evaluateWords(words, at, context);
  if (at.i !== words.length) throw new Error(`A stray ) in ${pipeline}`);
  return value;
}

/** How Helm prints a value. */
function printed(value: Value): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "object") throw new Error(`Printing ${JSON.stringify(value)} as is`);
  return String(value);
}

function renderNodes(nodes: readonly Node[], context: RenderContext): string {
  return nodes.map((node) => {
    if (node.type === "text") return node.text;
    if (node.type === "define") return "";
    if (node.type === "output") return printed(evaluate(node.pipeline, context));
    const branch = node.branches.find((b) => truthy(evaluate(b.condition, context)));
    return renderNodes(branch?.body ?? node.otherwise, context);
  }).join("");
}

/** The templates that a file defines, by name. */
function definesOf(nodes: readonly Node[], into: Map<string, Node[]>): Map<string, Node[]> {
  for (const node of nodes) if (node.type === "define") into.set(node.name, node.body);
  return into;
}

/** A template rendered with the context (its own defines added to the context's). */
export function renderTemplate(text: string, context: RenderContext): string {
  const nodes = parseTemplate(text);
  const defines = definesOf(nodes, new Map(context.defines));
  return renderNodes(nodes, { ...context, defines });
}

/** A file's documents as Helm splits them: at `---` lines, trimmed, empty ones dropped. */
export function splitDocuments(text: string): string[] {
  return text.split(/(?:^|\s*\n)---\s*/).map((d) => d.trim()).filter((d) => d !== "");
}

function kindOf(document: string): string {
  return String((parseYaml(document) as { kind?: string } | null)?.kind ?? "");
}

/** Documents sorted stably by kind in Helm's install order; unknown kinds last, by kind. */
export function helmOrder(documents: readonly string[]): string[] {
  const rank = (kind: string) => {
    const i = INSTALL_ORDER.indexOf(kind);
    return i >= 0 ? [i, ""] as const : [INSTALL_ORDER.length, kind] as const;
  };
  return documents.map((text, i) => ({ text, i, rank: rank(kindOf(text)) }))
    .sort((a, b) => a.rank[0] - b.rank[0] || a.rank[1].localeCompare(b.rank[1]) || a.i - b.i).map((
      d,
    ) => d.text);
}

/** Maps merged as Helm merges values: the override's keys win, maps merge deeply. */
function merged(base: Value, override: Value): Value {
  const isMap = (v: Value) => typeof v === "object" && v !== null && !Array.isArray(v);
  if (!isMap(base) || !isMap(override)) return override;
  const out: Record<string, Value> = { ...base as Record<string, Value> };
  for (const [key, value] of Object.entries(override as Record<string, Value>)) {
    out[key] = key in out ? merged(out[key], value) : value;
  }
  return out;
}

/** What `helm template --include-crds` would give for a chart. */
export interface Rendered {
  /** The documents, in Helm's order. */
  readonly documents: string[];
  /** The rendered `NOTES.txt`. */
  readonly notes: string;
}

/**
 * Render a chart: its `values.yaml` with the overrides merged in (as `--set`/`-f` do), in
 * a release of the namespace (`default` unless given) and of the name (the chart's unless
 * given: `helm install NAME chart/` with the name that `kopf manifests --helm` prints).
 */
export function renderChart(
  files: readonly ChartFile[],
  options: { values?: Record<string, Value>; namespace?: string; releaseName?: string } = {},
): Rendered {
  const file = (path: string) => files.find((f) => f.path === path);
  const values = merged(parseYaml(file("values.yaml")!.text) ?? {}, options.values ?? {});
  const chart = parseYaml(file("Chart.yaml")?.text ?? "{}") as RenderContext["chart"];
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const inTemplates = sorted.filter((f) => f.path.startsWith("templates/"));
  // Helm parses every file of templates/ together: a define of one is seen by all.
  const defines = new Map<string, Node[]>();
  for (const f of inTemplates) definesOf(parseTemplate(f.text), defines);
  const context: RenderContext = {
    values: values as Record<string, Value>,
    releaseNamespace: options.namespace ?? "default",
    releaseName: options.releaseName ?? chart?.name,
    chart,
    defines,
  };
  const crds = sorted.filter((f) => f.path.startsWith("crds/"))
    .flatMap((f) => splitDocuments(f.text));
  const templates = inTemplates.filter((f) =>
    f.path.endsWith(".yaml") && !f.path.split("/").at(-1)!.startsWith("_")
  ).flatMap((f) => splitDocuments(renderTemplate(f.text, context)));
  const notes = file("templates/NOTES.txt");
  return {
    documents: [...crds, ...helmOrder(templates)],
    notes: notes ? renderTemplate(notes.text, context) : "",
  };
}
