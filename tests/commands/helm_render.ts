/**
 * Rendering a Helm chart of `kopf manifests --helm` without Helm (there is none here): the
 * few Go-template constructs that the generator writes, evaluated as Helm evaluates them,
 * and nothing else — any other construct is refused, so a template that starts using one
 * fails the tests until this learns it (and its Helm semantics are checked).
 *
 * What is followed from Helm 3:
 *
 * - trim markers: `{{-` drops the whitespace before the action, newlines included;
 * - `if` is false for `false`, `0`, `""`, `null`, and empty lists and maps;
 * - `default D V` (sprig): `V` unless empty, else `D`; `or A B`: the first non-empty one,
 *   else the last; `quote V` (sprig): `V` as a string in double quotes, nothing for `null`;
 * - `toYaml V`: YAML with the keys of maps sorted and lists not indented under their key,
 *   as sigs.k8s.io/yaml writes it, without the last newline; `nindent N S`: a newline,
 *   then `S` with every line indented by `N` spaces;
 * - a missing value prints as nothing (Helm removes Go's `<no value>`);
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
  ".Release.Namespace",
  "if",
  "else if",
  "else",
  "end",
  "or",
  "default",
  "quote",
  "toYaml",
  "nindent",
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

/** What the templates see. */
export interface RenderContext {
  readonly values: Record<string, Value>;
  readonly releaseNamespace: string;
}

/** A piece of a parsed template. */
type Node =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "output"; readonly pipeline: string }
  | {
    readonly type: "if";
    readonly branches: { readonly condition: string; readonly body: Node[] }[];
    readonly otherwise: Node[];
  };

/** The actions of a template, `{{ … }}`, with their trim markers. */
function tokens(text: string): ({ text: string } | { action: string })[] {
  const found: ({ text: string } | { action: string })[] = [];
  let rest = text;
  for (;;) {
    const start = rest.indexOf("{{");
    if (start < 0) break;
    const end = rest.indexOf("}}", start);
    if (end < 0) throw new Error(`An unclosed action in: ${rest.slice(start, start + 40)}`);
    const inner = rest.slice(start + 2, end);
    let before = rest.slice(0, start);
    if (inner.startsWith("-")) before = before.replace(/\s+$/, "");
    if (inner.endsWith("-")) throw new Error(`"-}}" is not among the constructs: {{${inner}}}`);
    found.push({ text: before }, { action: inner.replace(/^-/, "").trim() });
    rest = rest.slice(end + 2);
  }
  found.push({ text: rest });
  return found;
}

const KEYWORD = /^(if|else if|else|end)\b\s*(.*)$/;

/** The template as a tree of text, outputs and conditionals. */
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

/** The constructs that a template uses (see {@link CONSTRUCTS}). */
export function constructsOf(text: string): Set<string> {
  const found = new Set<string>();
  for (const token of tokens(text)) {
    if (!("action" in token)) continue;
    const keyword = KEYWORD.exec(token.action);
    if (keyword) found.add(keyword[1]);
    const pipeline = keyword ? keyword[2] : token.action;
    for (const word of pipeline.split(/[\s|]+/).filter(Boolean)) {
      if (word.startsWith(".Values.")) found.add(".Values");
      else if (/^\d+$/.test(word)) continue;
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

const FUNCTIONS: Record<string, (...args: Value[]) => Value> = {
  or: (...args) => args.find(truthy) ?? args.at(-1),
  default: (fallback, given) => truthy(given) ? given : fallback,
  quote: (value) => value === null || value === undefined ? "" : JSON.stringify(String(value)),
  toYaml: (value) => helmToYaml(value ?? null),
  nindent: (spaces, text) => {
    const pad = " ".repeat(Number(spaces));
    return "\n" + pad + String(text).replaceAll("\n", "\n" + pad);
  },
};

function argument(word: string, context: RenderContext): Value {
  if (/^\d+$/.test(word)) return Number(word);
  if (word === ".Release.Namespace") return context.releaseNamespace;
  if (word.startsWith(".Values.")) {
    let value: Value = context.values;
    for (const key of word.slice(".Values.".length).split(".")) {
      value = (value as Record<string, Value> | undefined)?.[key];
    }
    return value;
  }
  throw new Error(`${word} is not among the constructs`);
}

/** The value of a pipeline: commands separated by `|`, each taking the last one's value. */
function evaluate(pipeline: string, context: RenderContext): Value {
  let value: Value = undefined;
  pipeline.split("|").map((command) => command.trim().split(/\s+/)).forEach((words, i) => {
    const [head, ...rest] = words;
    const args = rest.map((word) => argument(word, context));
    if (i > 0) args.push(value);
    if (head in FUNCTIONS) value = FUNCTIONS[head](...args);
    else if (i === 0 && rest.length === 0) value = argument(head, context);
    else throw new Error(`${head} is not among the constructs`);
  });
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
    if (node.type === "output") return printed(evaluate(node.pipeline, context));
    const branch = node.branches.find((b) => truthy(evaluate(b.condition, context)));
    return renderNodes(branch?.body ?? node.otherwise, context);
  }).join("");
}

/** A template rendered with the context. */
export function renderTemplate(text: string, context: RenderContext): string {
  return renderNodes(parseTemplate(text), context);
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
 * a release of the namespace (`default` unless given).
 */
export function renderChart(
  files: readonly ChartFile[],
  options: { values?: Record<string, Value>; namespace?: string } = {},
): Rendered {
  const file = (path: string) => files.find((f) => f.path === path);
  const values = merged(parseYaml(file("values.yaml")!.text) ?? {}, options.values ?? {});
  const context = {
    values: values as Record<string, Value>,
    releaseNamespace: options.namespace ?? "default",
  };
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const crds = sorted.filter((f) => f.path.startsWith("crds/"))
    .flatMap((f) => splitDocuments(f.text));
  const templates = sorted.filter((f) =>
    f.path.startsWith("templates/") && f.path.endsWith(".yaml") &&
    !f.path.split("/").at(-1)!.startsWith("_")
  ).flatMap((f) => splitDocuments(renderTemplate(f.text, context)));
  const notes = file("templates/NOTES.txt");
  return {
    documents: [...crds, ...helmOrder(templates)],
    notes: notes ? renderTemplate(notes.text, context) : "",
  };
}
