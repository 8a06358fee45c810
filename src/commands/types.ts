/**
 * `kopf types <crd.yaml|->`: TypeScript types of custom resources from the OpenAPI v3
 * schemas of their CustomResourceDefinitions. For each served version: the resource type
 * (`KopfExampleV1`, for `kopf.resource<KopfExampleV1>(...)`), the interfaces of its `spec`
 * and `status` (`KopfExampleV1Spec`, `KopfExampleV1Status`), and one named interface per
 * nested object (`KopfExampleV1SpecTemplate`, `...ContainersItem` for array items,
 * `...Value` for map values).
 *
 * The output is the same bytes for the same input, self-contained (no imports), and
 * formatted as `deno fmt` formats it with its default settings, so that it can be
 * committed and checked like any other source.
 *
 * @module
 */
import { Command } from "@commander-js/extra-typings";
import { parseAllDocuments } from "yaml";
import { ConfigurationError } from "../structs/errors.ts";
import { FileNotFoundError, readTextFile } from "../platform/files.ts";
import { readStandardInput, writeStandardOutput } from "../platform/standard_streams.ts";
import { exitCodeFor, failureText } from "./usage.ts";
import { CommandLineError } from "./run_options.ts";
import {
  comment,
  inline,
  literal,
  name,
  propertyName,
  quote,
  slotLines,
  type TypeNode,
  union,
  UNKNOWN,
} from "./type_text.ts";

/** A CRD's document as parsed, with where it came from for the messages. */
export interface CrdDocument {
  /** The parsed YAML or JSON document. */
  readonly content: unknown;
  /** Where it is, for messages: e.g. `crd.yaml`, or `crd.yaml, document 2`. */
  readonly where: string;
}

const EMPTY = "Record<string, never>";

/** A schema node, of which only objects are read: anything else describes nothing. */
type Schema = Readonly<Record<string, unknown>>;

function isObject(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/**
 * The documents of a YAML (or JSON) stream, `kind: List` unpacked into its items (as
 * `kubectl get crd -o yaml` prints several) and empty documents skipped.
 */
export function parseDocuments(yamlText: string, source: string): CrdDocument[] {
  const parsed = parseAllDocuments(yamlText);
  const streams = Array.isArray(parsed) ? parsed : [parsed];
  const documents: CrdDocument[] = [];
  streams.forEach((document, index) => {
    const where = streams.length > 1 ? `${source}, document ${index + 1}` : source;
    const error = document.errors[0];
    if (error !== undefined) {
      throw new ConfigurationError(
        `${where} is not valid YAML: ${error.message.split("\n")[0].replace(/:$/, "")}; fix it, ` +
          `or give a CRD as kubectl get crd NAME -o yaml prints it.`,
      );
    }
    const content: unknown = document.toJS();
    if (content === null || content === undefined) return;
    if (isObject(content) && content.kind === "List" && Array.isArray(content.items)) {
      content.items.forEach((item: unknown, i: number) => {
        documents.push({ content: item, where: `${where}, item ${i + 1}` });
      });
    } else {
      documents.push({ content, where });
    }
  });
  return documents;
}

/**
 * The TypeScript types of every CRD among the documents. Documents of other kinds are
 * skipped (so that a whole manifest can be given), but there must be at least one CRD.
 */
export function generateTypes(documents: readonly CrdDocument[], source: string): string {
  const crds = documents.filter((d) => isObject(d.content) && isCrd(d.content));
  if (crds.length === 0) {
    const kinds = documents.map((d) => (isObject(d.content) && text(d.content.kind)) || "?");
    const found = kinds.length === 0 ? "nothing" : [...new Set(kinds)].join(", ");
    throw new CommandLineError(
      `${source} holds no CustomResourceDefinition (found: ${found}); give the CRD's YAML, ` +
        `e.g. from kubectl get crd NAME -o yaml.`,
    );
  }
  const output = new Output();
  for (const crd of crds) addCrd(output, crd.content as Schema, crd.where);
  return output.text();
}

/** The types of the CRDs in a YAML (or JSON) stream; see {@link generateTypes}. */
export function generateTypesFromYaml(yamlText: string, source: string): string {
  return generateTypes(parseDocuments(yamlText, source), source);
}

function isCrd(content: Schema): boolean {
  return content.kind === "CustomResourceDefinition" &&
    typeof content.apiVersion === "string" &&
    content.apiVersion.startsWith("apiextensions.k8s.io/");
}

/** The declarations so far, and the names they took (each name once in a file). */
class Output {
  readonly #declarations: string[][] = [];
  readonly #names = new Set<string>();

  /** A free name: the wanted one, or with a number appended if it is taken. */
  claim(wanted: string): string {
    let candidate = wanted;
    for (let n = 2; this.#names.has(candidate); n++) candidate = `${wanted}${n}`;
    this.#names.add(candidate);
    return candidate;
  }

  /** A place for a declaration, filled later: a parent is written before its children. */
  reserve(): number {
    this.#declarations.push([]);
    return this.#declarations.length - 1;
  }

  fill(slot: number, lines: string[]): void {
    this.#declarations[slot] = lines;
  }

  text(): string {
    const header = [
      "// Types of custom resources, generated by `kopf types` from the OpenAPI schemas",
      "// of their CustomResourceDefinitions: regenerate rather than edit.",
    ];
    return [header, ...this.#declarations].map((lines) => lines.join("\n")).join("\n\n") +
      "\n";
  }
}

/** One served version of one CRD: what names and doc comments refer to. */
interface VersionContext {
  readonly kind: string;
  readonly apiVersion: string;
}

function addCrd(output: Output, crd: Schema, where: string): void {
  const spec = isObject(crd.spec) ? crd.spec : {};
  const names = isObject(spec.names) ? spec.names : {};
  const crdName = isObject(crd.metadata) ? text(crd.metadata.name) : undefined;
  const at = crdName ? `${where} (${crdName})` : where;
  const kind = text(names.kind);
  const plural = text(names.plural);
  const group = text(spec.group);
  for (const [field, value] of [["names.kind", kind], ["names.plural", plural], ["group", group]]) {
    if (value === undefined) {
      throw new ConfigurationError(
        `${at}: the CRD has no spec.${field}; give a complete CRD, e.g. from kubectl get crd NAME -o yaml.`,
      );
    }
  }
  // apiextensions.k8s.io/v1beta1 had one schema for all versions, and a single version.
  const versions: Schema[] = Array.isArray(spec.versions)
    ? spec.versions.filter(isObject)
    : text(spec.version)
    ? [{ name: spec.version, served: true }]
    : [];
  const served = versions.filter((v) => v.served !== false && text(v.name) !== undefined);
  if (served.length === 0) {
    throw new ConfigurationError(
      `${at}: the CRD serves no version (spec.versions[].served); there is nothing to type.`,
    );
  }
  const shared = isObject(spec.validation) ? spec.validation.openAPIV3Schema : undefined;
  const scope = spec.scope === "Cluster" ? "cluster-scoped" : "namespaced";
  for (const version of served) {
    const versionName = version.name as string;
    const schema = (isObject(version.schema) ? version.schema.openAPIV3Schema : undefined) ??
      shared;
    if (!isObject(schema)) {
      throw new ConfigurationError(
        `${at}: version ${versionName} has no schema (spec.versions[].schema.openAPIV3Schema); ` +
          `add one \u2014 at least spec and status with x-kubernetes-preserve-unknown-fields: true.`,
      );
    }
    const context = { kind: kind!, apiVersion: `${group}/${versionName}` };
    const typeName = output.claim(`${pascal(kind!)}${pascal(versionName)}`);
    const usage = `kopf.resource<${typeName}>(${
      [group!, versionName, plural!].map(quote).join(", ")
    })`;
    const about = [
      ...descriptionOf(schema),
      ...(descriptionOf(schema).length > 0 ? [""] : []),
      `A \`${kind}\` of \`${group}/${versionName}\`, ${scope} (the CRD ${crdName ?? plural}).`,
      `Type handlers with it: \`${usage}\`.`,
      ...(version.deprecated === true
        ? ["", `@deprecated ${text(version.deprecationWarning) ?? "This version is deprecated."}`]
        : []),
    ];
    addResource(output, typeName, schema, context, about);
  }
}

/** The resource type: apiVersion, kind, metadata, spec, status and any other root fields. */
function addResource(
  output: Output,
  typeName: string,
  schema: Schema,
  context: VersionContext,
  about: string[],
): void {
  const slot = output.reserve();
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = requiredOf(schema);
  const open = schema["x-kubernetes-preserve-unknown-fields"] === true;
  const members: string[] = [
    ...comment(1, ["The API group and version."]),
    `  apiVersion: ${quote(context.apiVersion)};`,
    ...comment(1, ["The kind."]),
    `  kind: ${quote(context.kind)};`,
    ...comment(1, ["The metadata: name, namespace, labels, annotations, \u2026"]),
    "  metadata?: {",
    "    name?: string;",
    "    namespace?: string;",
    "    labels?: { [key: string]: string };",
    "    annotations?: { [key: string]: string };",
    "    [key: string]: unknown;",
    "  };",
  ];
  for (const part of ["spec", "status"]) {
    const partSchema = properties[part];
    const partName = output.claim(`${typeName}${pascal(part)}`);
    const where = `The \`${part}\` of a \`${context.kind}\` of \`${context.apiVersion}\`.`;
    if (isObject(partSchema)) {
      addNamed(output, partName, partSchema, context, part, [where]);
    } else {
      // Not in the schema: pruned by the API server, unless the root keeps unknown fields.
      const slotOfPart = output.reserve();
      output.fill(slotOfPart, [
        ...comment(0, [
          where,
          open
            ? "The schema does not describe it, and keeps whatever it holds."
            : "The schema does not declare it, so the API server keeps none.",
        ]),
        `export type ${partName} = ${open ? "{ [key: string]: unknown }" : EMPTY};`,
      ]);
    }
    const described = isObject(partSchema) ? descriptionOf(partSchema) : [];
    const doc = described.length > 0
      ? [...described, ...hintsOf(partSchema as Schema)]
      : [part === "spec" ? "The desired state." : "The observed state."];
    members.push(...comment(1, doc));
    const nullable = isObject(partSchema) && partSchema.nullable === true;
    members.push(
      ...slotLines(
        1,
        `${part}${required.has(part) ? "" : "?"}: `,
        nullable ? union([name(partName), name("null")]) : name(partName),
        ";",
      ),
    );
  }
  for (const [key, value] of Object.entries(properties)) {
    if (["apiVersion", "kind", "metadata", "spec", "status"].includes(key)) continue;
    if (!isObject(value)) continue;
    members.push(
      ...propertyLines(output, typeName, key, value, required.has(key), context, key),
    );
  }
  if (open) members.push("  [key: string]: unknown;");
  output.fill(slot, [...comment(0, about), `export interface ${typeName} {`, ...members, "}"]);
}

/**
 * A named declaration for a schema: an interface for objects with fields (or keeping
 * unknown ones), else a type alias.
 */
function addNamed(
  output: Output,
  typeName: string,
  schema: Schema,
  context: VersionContext,
  path: string,
  about: string[],
): void {
  const slot = output.reserve();
  const properties = isObject(schema.properties) ? schema.properties : undefined;
  const type = typeOf(schema);
  if (properties === undefined && !(type === "object" && isOpen(schema))) {
    const aliased = typeNode(output, typeName, schema, context, path, false);
    output.fill(slot, [
      ...comment(0, about),
      ...slotLines(0, `export type ${typeName} = `, aliased, ";"),
    ]);
    return;
  }
  const required = requiredOf(schema);
  const members: string[] = [];
  for (const [key, value] of Object.entries(properties ?? {})) {
    if (!isObject(value)) continue;
    members.push(
      ...propertyLines(output, typeName, key, value, required.has(key), context, `${path}.${key}`),
    );
  }
  if (isOpen(schema)) {
    members.push(`  [key: string]: ${openValue(output, typeName, schema, context, path)};`);
  }
  // A nullable object is declared as it is; where it is used, `| null` is added.
  output.fill(slot, [...comment(0, about), `export interface ${typeName} {`, ...members, "}"]);
}

/** Whether an object keeps fields that its properties do not list. */
function isOpen(schema: Schema): boolean {
  return schema["x-kubernetes-preserve-unknown-fields"] === true ||
    schema["x-kubernetes-embedded-resource"] === true ||
    schema.additionalProperties === true || isObject(schema.additionalProperties);
}

/** The value type of an open object's index signature. */
function openValue(
  output: Output,
  parent: string,
  schema: Schema,
  context: VersionContext,
  path: string,
): string {
  // Fields of their own narrow what other fields may hold: any of them, or anything else.
  if (isObject(schema.properties)) return "unknown";
  const value = schema.additionalProperties;
  if (!isObject(value)) return "unknown";
  return inline(typeNode(output, `${parent}Value`, value, context, `${path}.*`, true));
}

/** The doc comment and the declaration of one field. */
function propertyLines(
  output: Output,
  parent: string,
  key: string,
  schema: Schema,
  required: boolean,
  context: VersionContext,
  path: string,
): string[] {
  const type = typeNode(output, `${parent}${pascal(key)}`, schema, context, path, true);
  return [
    ...comment(1, [...descriptionOf(schema), ...hintsOf(schema)]),
    ...slotLines(1, `${propertyName(key)}${required ? "" : "?"}: `, type, ";"),
  ];
}

function typeOf(schema: Schema): string | undefined {
  if (typeof schema.type === "string") return schema.type;
  // Fields or a map imply an object even where the type is left out.
  if (isObject(schema.properties) || schema.additionalProperties !== undefined) return "object";
  return undefined;
}

/**
 * The type of a schema. Objects with fields become named interfaces (`wanted`, or with a
 * number appended); `nested` says whether this is a field's type (then `nullable` adds
 * `| null` here) or a declaration's own (then the user of the declaration adds it).
 */
function typeNode(
  output: Output,
  wanted: string,
  schema: Schema,
  context: VersionContext,
  path: string,
  nested: boolean,
): TypeNode {
  const core = coreType(output, wanted, schema, context, path);
  return nested && schema.nullable === true ? union([core, name("null")]) : core;
}

function coreType(
  output: Output,
  wanted: string,
  schema: Schema,
  context: VersionContext,
  path: string,
): TypeNode {
  if (schema["x-kubernetes-int-or-string"] === true) {
    return union([name("number"), name("string")]);
  }
  if (Array.isArray(schema.enum) && schema.enum.length > 0) {
    const literals = [...new Set(schema.enum.map(literal))];
    return union(literals.map(name));
  }
  switch (typeOf(schema)) {
    case "string":
      return name("string");
    case "integer":
    case "number":
      return name("number");
    case "boolean":
      return name("boolean");
    case "array": {
      const items = isObject(schema.items) ? schema.items : undefined;
      if (items === undefined) return { kind: "array", element: UNKNOWN };
      const element = typeNode(output, `${wanted}Item`, items, context, `${path}[*]`, true);
      return { kind: "array", element };
    }
    case "object": {
      if (isObject(schema.properties)) {
        const typeName = output.claim(wanted);
        const where = `\`${path}\` of a \`${context.kind}\` of \`${context.apiVersion}\`.`;
        addNamed(output, typeName, schema, context, path, [`The ${where}`]);
        return name(typeName);
      }
      const value = schema.additionalProperties;
      if (isObject(value)) {
        const valueType = typeNode(output, `${wanted}Value`, value, context, `${path}.*`, true);
        return { kind: "map", value: valueType };
      }
      if (isOpen(schema)) return { kind: "map", value: UNKNOWN };
      return name(EMPTY); // a structural schema prunes every field it does not declare
    }
    default:
      // No type: x-kubernetes-preserve-unknown-fields alone keeps any JSON value.
      return UNKNOWN;
  }
}

function requiredOf(schema: Schema): Set<string> {
  return new Set(Array.isArray(schema.required) ? schema.required.filter(text) : []);
}

/** `kopf-example` -> `KopfExample`, `v1beta1` -> `V1beta1`: a part of a type name. */
export function pascal(value: string): string {
  const words = value.split(/[^A-Za-z0-9]+/).filter((w) => w !== "");
  const joined = words.map((w) => w[0].toUpperCase() + w.slice(1)).join("");
  if (joined === "") return "Field";
  return /^[0-9]/.test(joined) ? `_${joined}` : joined;
}

function descriptionOf(schema: Schema): string[] {
  const description = text(schema.description);
  if (description === undefined) return [];
  const lines = description.replace(/\r\n?/g, "\n").split("\n").map((l) => l.trimEnd());
  while (lines.length > 0 && lines[0] === "") lines.shift();
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** What the schema says beyond the type, as doc tags: format, default, bounds, pattern. */
function hintsOf(schema: Schema): string[] {
  const hints: string[] = [];
  if (schema.type === "integer") hints.push("@integer");
  if (text(schema.format)) hints.push(`@format ${schema.format}`);
  if (schema.default !== undefined) hints.push(`@default ${JSON.stringify(schema.default)}`);
  for (
    const key of [
      "minimum",
      "exclusiveMinimum",
      "maximum",
      "exclusiveMaximum",
      "minLength",
      "maxLength",
      "minItems",
      "maxItems",
      "minProperties",
      "maxProperties",
    ]
  ) {
    const value = schema[key];
    if (typeof value === "number" || typeof value === "boolean") hints.push(`@${key} ${value}`);
  }
  if (text(schema.pattern)) hints.push(`@pattern ${schema.pattern}`);
  const description = descriptionOf(schema);
  return hints.length > 0 && description.length > 0 ? ["", ...hints] : hints;
}

/** Options of {@link typesCommand}: where it reads and writes (the process's own by default). */
export interface TypesIo {
  /** Read a file's text. */
  readonly readFile?: (path: string) => Promise<string>;
  /** Read the standard input (for `-`). */
  readonly readStdin?: () => Promise<string>;
  /** Write the generated code. */
  readonly write?: (text: string) => Promise<void>;
}

/** The generated types for the files given (`-` for the standard input), in order. */
export async function typesOfFiles(files: readonly string[], io: TypesIo = {}): Promise<string> {
  const readFile = io.readFile ?? readTextFile;
  const readStdin = io.readStdin ?? readStandardInput;
  const documents: CrdDocument[] = [];
  for (const file of files) {
    let source: string;
    try {
      source = file === "-" ? await readStdin() : await readFile(file);
    } catch (error) {
      if (error instanceof FileNotFoundError) {
        throw new CommandLineError(
          `Cannot read ${file}: no such file; give a CRD's YAML file, or - for the standard input.`,
        );
      }
      throw error;
    }
    documents.push(...parseDocuments(source, file === "-" ? "the standard input" : file));
  }
  const names = files.map((f) => (f === "-" ? "the standard input" : f)).join(", ");
  return generateTypes(documents, names);
}

/** The `kopf types` subcommand. */
export function typesCommand(io: TypesIo = {}): Command {
  const command = new Command("types")
    .summary("Print TypeScript types of custom resources from their CRDs' schemas.")
    .description(
      "Print TypeScript types of custom resources from their CRDs' schemas: for each served " +
        "version, the resource type (for kopf.resource<T>()), its spec and status, and their " +
        "nested objects. Redirect the output into a file, e.g. kopf types crd.yaml > types.ts.",
    )
    .argument(
      "<files...>",
      "YAML files with CustomResourceDefinitions, or - for the standard input",
    )
    .action(async (files, _flags, self) => {
      try {
        const code = await typesOfFiles(files, io);
        await (io.write ?? writeStandardOutput)(code);
      } catch (error) {
        self.error(failureText("types", error), { exitCode: exitCodeFor(error) });
      }
    });
  return command as unknown as Command;
}
