/**
 * `kopf types`: each schema feature becomes its type, the names are predictable, the
 * output is stable and formatted, and bad input is refused in one line.
 */
import {
  type CrdDocument,
  generateTypes,
  generateTypesFromYaml,
  parseDocuments,
  pascal,
  typesOfFiles,
} from "../../src/commands/types.ts";
import { CommandLineError } from "../../src/commands/run_options.ts";
import { ConfigurationError } from "../../src/structs/errors.ts";
import {
  assert,
  assertEquals,
  assertRejects,
  assertStringIncludes,
  assertThrows,
} from "../assert.ts";

const ROOT = new URL("../../", import.meta.url);
const WIDGETS = new URL("tests/fixtures/crds/widgets.yaml", ROOT);

/** A v1 CRD of `Widget` in `example.com` whose only version has this root schema. */
function crd(schema: Record<string, unknown>, version: Record<string, unknown> = {}) {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "widgets.example.com" },
    spec: {
      group: "example.com",
      scope: "Namespaced",
      names: { kind: "Widget", plural: "widgets" },
      versions: [{
        name: "v1",
        served: true,
        storage: true,
        ...version,
        schema: { openAPIV3Schema: schema },
      }],
    },
  };
}

function generate(...contents: unknown[]): string {
  const documents: CrdDocument[] = contents.map((content, i) => ({
    content,
    where: `doc ${i + 1}`,
  }));
  return generateTypes(documents, "test.yaml");
}

/** The types of a CRD whose `spec` has this schema. */
function specTypes(spec: Record<string, unknown>): string {
  return generate(crd({ type: "object", properties: { spec } }));
}

/** One declaration (without its doc comment) of the generated code. */
function declaration(code: string, name: string): string {
  const lines = code.split("\n");
  const start = lines.findIndex((l) =>
    l.startsWith(`export interface ${name} {`) || l.startsWith(`export type ${name} =`)
  );
  assert(start >= 0, `no declaration of ${name} in:\n${code}`);
  const interfaceEnd = (l: string) => l === "}";
  const end = lines.findIndex((l, i) =>
    i >= start && (lines[start].startsWith("export interface") ? interfaceEnd(l) : l.endsWith(";"))
  );
  return lines.slice(start, end + 1).join("\n");
}

Deno.test("required and optional fields, and the scalar types", () => {
  const code = specTypes({
    type: "object",
    required: ["name", "count"],
    properties: {
      name: { type: "string" },
      count: { type: "integer" },
      ratio: { type: "number" },
      enabled: { type: "boolean" },
    },
  });
  assertEquals(
    declaration(code, "WidgetV1Spec"),
    `export interface WidgetV1Spec {
  name: string;
  /** @integer */
  count: number;
  ratio?: number;
  enabled?: boolean;
}`,
  );
});

Deno.test("enums are unions of literals; int-or-string is number | string; nullable adds null", () => {
  const code = specTypes({
    type: "object",
    properties: {
      size: { type: "string", enum: ["small", "large", 'say "hi"'] },
      level: { type: "integer", enum: [1, 2, 3] },
      flag: { type: "boolean", enum: [true] },
      port: {
        "x-kubernetes-int-or-string": true,
        anyOf: [{ type: "integer" }, { type: "string" }],
      },
      maybe: { type: "string", nullable: true },
      mode: { type: "string", enum: ["a", null], nullable: true },
    },
  });
  assertEquals(
    declaration(code, "WidgetV1Spec"),
    `export interface WidgetV1Spec {
  size?: "small" | "large" | 'say "hi"';
  /** @integer */
  level?: 1 | 2 | 3;
  flag?: true;
  port?: number | string;
  maybe?: string | null;
  mode?: "a" | null;
}`,
  );
});

Deno.test("long unions are broken one member per line, as deno fmt does", () => {
  const phases = ["Pending", "Building", "Running", "Degraded", "Failed", "Terminating", "Gone"];
  const code = specTypes({
    type: "object",
    properties: {
      phase: { type: "string", enum: phases },
      phases: { type: "array", items: { type: "string", enum: phases } },
    },
  });
  assertEquals(
    declaration(code, "WidgetV1Spec"),
    `export interface WidgetV1Spec {
  phase?:
${phases.map((p, i) => `    | "${p}"${i === phases.length - 1 ? ";" : ""}`).join("\n")}
  phases?: (
${phases.map((p) => `    | "${p}"`).join("\n")}
  )[];
}`,
  );
});

Deno.test("open objects: preserve-unknown-fields is an open JSON object, or any value without a type", () => {
  const code = specTypes({
    type: "object",
    properties: {
      config: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
      anything: { "x-kubernetes-preserve-unknown-fields": true },
      partly: {
        type: "object",
        "x-kubernetes-preserve-unknown-fields": true,
        properties: { known: { type: "string" } },
      },
      embedded: { type: "object", "x-kubernetes-embedded-resource": true },
      pruned: { type: "object" },
    },
  });
  assertEquals(
    declaration(code, "WidgetV1Spec"),
    `export interface WidgetV1Spec {
  config?: { [key: string]: unknown };
  anything?: unknown;
  partly?: WidgetV1SpecPartly;
  embedded?: { [key: string]: unknown };
  pruned?: Record<string, never>;
}`,
  );
  assertEquals(
    declaration(code, "WidgetV1SpecPartly"),
    `export interface WidgetV1SpecPartly {
  known?: string;
  [key: string]: unknown;
}`,
  );
  // The example CRD keeps everything in spec and status.
  const open = generate(crd({
    type: "object",
    properties: {
      spec: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
    },
  }));
  assertEquals(
    declaration(open, "WidgetV1Spec"),
    "export interface WidgetV1Spec {\n  [key: string]: unknown;\n}",
  );
});

Deno.test("nested objects and array items become named interfaces, parents first", () => {
  const code = specTypes({
    type: "object",
    properties: {
      template: {
        type: "object",
        properties: {
          parts: {
            type: "array",
            items: { type: "object", required: ["name"], properties: { name: { type: "string" } } },
          },
        },
      },
      tags: { type: "array", items: { type: "string" } },
      matrix: { type: "array", items: { type: "array", items: { type: "number" } } },
      loose: { type: "array" },
      optional: { type: "object", nullable: true, properties: { x: { type: "string" } } },
    },
  });
  assertEquals(
    declaration(code, "WidgetV1Spec"),
    `export interface WidgetV1Spec {
  template?: WidgetV1SpecTemplate;
  tags?: string[];
  matrix?: number[][];
  loose?: unknown[];
  optional?: WidgetV1SpecOptional | null;
}`,
  );
  assertEquals(
    declaration(code, "WidgetV1SpecTemplate"),
    "export interface WidgetV1SpecTemplate {\n  parts?: WidgetV1SpecTemplatePartsItem[];\n}",
  );
  assertEquals(
    declaration(code, "WidgetV1SpecTemplatePartsItem"),
    "export interface WidgetV1SpecTemplatePartsItem {\n  name: string;\n}",
  );
  const order = ["WidgetV1Spec ", "WidgetV1SpecTemplate ", "WidgetV1SpecTemplatePartsItem "]
    .map((n) => code.indexOf(`export interface ${n}`));
  assertEquals(order, [...order].sort((a, b) => a - b));
  assertStringIncludes(
    code,
    "/** The `spec.template.parts[*]` of a `Widget` of `example.com/v1`. */",
  );
});

Deno.test("additionalProperties are maps: of a type, of named interfaces, or of anything", () => {
  const code = specTypes({
    type: "object",
    properties: {
      labels: { type: "object", additionalProperties: { type: "string" } },
      limits: {
        type: "object",
        additionalProperties: { type: "object", properties: { cpu: { type: "string" } } },
      },
      nested: {
        type: "object",
        additionalProperties: { type: "object", additionalProperties: { type: "integer" } },
      },
      free: { type: "object", additionalProperties: true },
    },
  });
  assertEquals(
    declaration(code, "WidgetV1Spec"),
    `export interface WidgetV1Spec {
  labels?: { [key: string]: string };
  limits?: { [key: string]: WidgetV1SpecLimitsValue };
  nested?: { [key: string]: { [key: string]: number } };
  free?: { [key: string]: unknown };
}`,
  );
  assertEquals(
    declaration(code, "WidgetV1SpecLimitsValue"),
    "export interface WidgetV1SpecLimitsValue {\n  cpu?: string;\n}",
  );
  // A spec that is a map itself: its interface is the index signature.
  const mapSpec = specTypes({ type: "object", additionalProperties: { type: "string" } });
  assertEquals(
    declaration(mapSpec, "WidgetV1Spec"),
    "export interface WidgetV1Spec {\n  [key: string]: string;\n}",
  );
});

Deno.test("descriptions are doc comments; format, default and bounds are doc tags", () => {
  const code = specTypes({
    type: "object",
    properties: {
      when: {
        type: "string",
        format: "date-time",
        description: "When to start.\nAn RFC 3339 time; */ cannot end the comment.\n",
      },
      replicas: { type: "integer", format: "int32", default: 1, minimum: 0, maximum: 10 },
      name: { type: "string", pattern: "^[a-z]+$", maxLength: 63, description: "The name." },
      short: { type: "string", description: "One line." },
    },
  });
  assertStringIncludes(
    code,
    `  /**
   * When to start.
   * An RFC 3339 time; *\\/ cannot end the comment.
   *
   * @format date-time
   */
  when?: string;
  /**
   * @integer
   * @format int32
   * @default 1
   * @minimum 0
   * @maximum 10
   */
  replicas?: number;
  /**
   * The name.
   *
   * @maxLength 63
   * @pattern ^[a-z]+$
   */
  name?: string;
  /** One line. */
  short?: string;`,
  );
});

Deno.test("field names that are not identifiers are quoted; type names are PascalCase", () => {
  const code = specTypes({
    type: "object",
    properties: {
      "with-dashes": { type: "object", properties: { "x.y": { type: "string" } } },
      default: { type: "string" },
    },
  });
  assertStringIncludes(code, '  "with-dashes"?: WidgetV1SpecWithDashes;');
  assertStringIncludes(code, '  "x.y"?: string;');
  assertStringIncludes(code, "  default?: string;");
  assertEquals(pascal("v1beta1"), "V1beta1");
  assertEquals(pascal("kopf-example.config_map"), "KopfExampleConfigMap");
  assertEquals(pascal("fooBar"), "FooBar");
  assertEquals(pascal("2fa"), "_2fa");
  assertEquals(pascal("$"), "Field");
});

Deno.test("names that clash get a number; so do two CRDs of one kind in one file", () => {
  const code = specTypes({
    type: "object",
    properties: {
      fooBar: { type: "object", properties: { a: { type: "string" } } },
      foo: {
        type: "object",
        properties: { bar: { type: "object", properties: { b: { type: "string" } } } },
      },
    },
  });
  assertStringIncludes(code, "  fooBar?: WidgetV1SpecFooBar;");
  assertStringIncludes(code, "  bar?: WidgetV1SpecFooBar2;");
  const other = crd({ type: "object" });
  other.spec.group = "other.example.com";
  const both = generate(crd({ type: "object" }), other);
  assertStringIncludes(both, "export interface WidgetV1 {");
  assertStringIncludes(both, "export interface WidgetV12 {");
  assertStringIncludes(both, 'apiVersion: "other.example.com/v1";');
});

Deno.test("the resource type: apiVersion, kind, metadata, spec and status, how to use it", () => {
  const code = generate(crd({
    type: "object",
    description: "A widget.",
    required: ["spec"],
    properties: {
      spec: { type: "object", description: "What it should be.", properties: {} },
      status: { type: "object", nullable: true, properties: { ok: { type: "boolean" } } },
      data: { type: "object", additionalProperties: { type: "string" } },
    },
  }));
  const resource = declaration(code, "WidgetV1");
  assertStringIncludes(resource, '  apiVersion: "example.com/v1";\n');
  assertStringIncludes(resource, '  kind: "Widget";\n');
  assertStringIncludes(resource, "  metadata?: {\n    name?: string;\n");
  assertStringIncludes(resource, "  /** What it should be. */\n  spec: WidgetV1Spec;\n");
  assertStringIncludes(resource, "  status?: WidgetV1Status | null;\n");
  assertStringIncludes(resource, "  data?: { [key: string]: string };\n}");
  assertStringIncludes(
    code,
    `/**
 * A widget.
 *
 * A \`Widget\` of \`example.com/v1\`, namespaced (the CRD widgets.example.com).
 * Type handlers with it: \`kopf.resource<WidgetV1>("example.com", "v1", "widgets")\`.
 */
export interface WidgetV1 {`,
  );
  // No spec in the schema: the API server prunes it, and the type says so.
  const statusOnly = generate(crd({ type: "object", properties: { status: { type: "object" } } }));
  assertStringIncludes(statusOnly, "export type WidgetV1Spec = Record<string, never>;");
  assertStringIncludes(statusOnly, "export type WidgetV1Status = Record<string, never>;");
  const openRoot = generate(crd({ type: "object", "x-kubernetes-preserve-unknown-fields": true }));
  assertStringIncludes(openRoot, "export type WidgetV1Spec = { [key: string]: unknown };");
  assertStringIncludes(openRoot, "  [key: string]: unknown;\n}");
});

Deno.test("one set of types per served version; deprecated versions say so", async () => {
  const code = generateTypesFromYaml(await Deno.readTextFile(WIDGETS), "widgets.yaml");
  for (const name of ["WidgetV1", "WidgetV1Spec", "WidgetV1Status", "WidgetV1beta1"]) {
    assertStringIncludes(code, `export interface ${name} {`);
  }
  assert(!code.includes("V1alpha1"), "a version that is not served has no types");
  assertStringIncludes(
    code,
    " * @deprecated example.com/v1beta1 Widget is deprecated; use example.com/v1 Widget.\n",
  );
  // v1beta1 CRDs: one version and one schema for all.
  const legacy = generate({
    apiVersion: "apiextensions.k8s.io/v1beta1",
    kind: "CustomResourceDefinition",
    spec: {
      group: "example.com",
      version: "v1",
      names: { kind: "Widget", plural: "widgets" },
      validation: {
        openAPIV3Schema: { properties: { spec: { properties: { a: { type: "string" } } } } },
      },
    },
  });
  assertStringIncludes(legacy, "export interface WidgetV1Spec {\n  a?: string;\n}");
});

Deno.test("several CRDs in a stream, lists, and other kinds among them", () => {
  const yaml = [
    "apiVersion: v1",
    "kind: Namespace",
    "metadata: { name: x }",
    "---",
    "# an empty document: skipped",
    "---",
    "apiVersion: v1",
    "kind: List",
    "items:",
    `  - ${JSON.stringify(crd({ type: "object" }))}`,
    "---",
    JSON.stringify({
      ...crd({ type: "object" }),
      spec: { ...crd({}).spec, names: { kind: "Gadget", plural: "gadgets" } },
    }),
  ].join("\n");
  const documents = parseDocuments(yaml, "all.yaml");
  assertEquals(documents.map((d) => d.where), [
    "all.yaml, document 1",
    "all.yaml, document 3, item 1",
    "all.yaml, document 4",
  ]);
  const code = generateTypes(documents, "all.yaml");
  assertStringIncludes(code, "export interface WidgetV1 {");
  assertStringIncludes(code, "export interface GadgetV1 {");
  assert(code.indexOf("WidgetV1 {") < code.indexOf("GadgetV1 {"), "in the order given");
});

Deno.test("the same input gives the same bytes, formatted as deno fmt and deno lint want", async () => {
  const yaml = await Deno.readTextFile(WIDGETS);
  const code = generateTypesFromYaml(yaml, "widgets.yaml");
  assertEquals(generateTypesFromYaml(yaml, "widgets.yaml"), code);
  assert(code.endsWith("}\n") && !code.includes("\n\n\n") && !/[ \t]$/m.test(code));
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/widgets.ts`, code);
    // deno fmt's defaults (line width 80), and this project's settings (100).
    for (const args of [["fmt", "--check"], ["fmt", "--check", "--line-width", "100"], ["lint"]]) {
      const { code: exit, stderr } = await new Deno.Command(Deno.execPath(), {
        args: [...args, `${dir}/widgets.ts`],
        cwd: dir,
        env: { NO_COLOR: "1" },
      }).output();
      assertEquals(exit, 0, `deno ${args.join(" ")}:\n${new TextDecoder().decode(stderr)}`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("what is not a CRD is refused in one line naming the file and what to give", () => {
  const notCrd = assertThrows(
    () => generateTypesFromYaml("apiVersion: kopf.dev/v1\nkind: KopfExample\n", "obj.yaml"),
    CommandLineError,
  );
  assertEquals(
    notCrd.message,
    "obj.yaml holds no CustomResourceDefinition (found: KopfExample); give the CRD's YAML, " +
      "e.g. from kubectl get crd NAME -o yaml.",
  );
  assertThrows(() => generateTypesFromYaml("", "empty.yaml"), CommandLineError, "(found: nothing)");
  const broken = assertThrows(
    () => generateTypesFromYaml("a: [1, 2\nb: c: d\n", "broken.yaml"),
    ConfigurationError,
  );
  assertStringIncludes(broken.message, "broken.yaml is not valid YAML: ");
  assert(!broken.message.includes("\n"), broken.message);
});

Deno.test("a CRD without a schema or without names is refused, naming the document and the version", () => {
  const schemaless = crd({ type: "object" });
  delete (schemaless.spec.versions[0] as { schema?: unknown }).schema;
  const error = assertThrows(
    () => generate({ kind: "Namespace" }, schemaless),
    ConfigurationError,
  );
  assertEquals(
    error.message,
    "doc 2 (widgets.example.com): version v1 has no schema " +
      "(spec.versions[].schema.openAPIV3Schema); add one — at least spec and status with " +
      "x-kubernetes-preserve-unknown-fields: true.",
  );
  const nameless = crd({ type: "object" });
  nameless.spec.names = { plural: "widgets" } as typeof nameless.spec.names;
  assertThrows(
    () => generate(nameless),
    ConfigurationError,
    "doc 1 (widgets.example.com): the CRD has no spec.names.kind",
  );
  const unserved = crd({ type: "object" }, { served: false });
  assertThrows(() => generate(unserved), ConfigurationError, "the CRD serves no version");
});

Deno.test("files are read in order, - is the standard input, a missing file is a usage error", async () => {
  const yaml = await Deno.readTextFile(WIDGETS);
  const code = await typesOfFiles(["-"], { readStdin: () => Promise.resolve(yaml) });
  assertEquals(code, generateTypesFromYaml(yaml, "the standard input"));
  await assertRejects(
    () => typesOfFiles(["absent.yaml"]),
    CommandLineError,
    "Cannot read absent.yaml: no such file; give a CRD's YAML file, or - for the standard input.",
  );
});
