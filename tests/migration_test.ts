/**
 * docs/migration.md cannot drift from the exports: every TypeScript name of its tables
 * exists (values of the `kopf` namespace, types of the entry points and their fields,
 * settings, command-line flags), every value of the `kopf` namespace is in a table, and
 * every public name of Kopf's manual has a row.
 */
import { assert, assertEquals } from "./assert.ts";
import * as kopf from "../src/kopf.ts";
import { OperatorSettings } from "../src/settings/operator_settings.ts";
import { buildCli } from "../src/cli/main.ts";

const ROOT = new URL("../", import.meta.url);
const ENTRY_POINTS = ["mod.ts", "src/testing/mod.ts", "src/client/mod.ts", "src/cli/main.ts"];

/**
 * The public `kopf.*` names of Kopf's manual (decorators, functions, classes, errors,
 * markers), its handler arguments and options, the settings and the command line it
 * mentions: each must be in the Kopf column of a table.
 */
const MANUAL_NAMES = [
  // registering
  "kopf.on.create",
  "kopf.on.update",
  "kopf.on.delete",
  "kopf.on.resume",
  "kopf.on.field",
  "kopf.on.event",
  "kopf.on.daemon",
  "kopf.on.timer",
  "kopf.on.index",
  "kopf.on.validate",
  "kopf.on.mutate",
  "kopf.on.startup",
  "kopf.on.cleanup",
  "kopf.on.login",
  "kopf.on.probe",
  "kopf.on.subhandler",
  "kopf.on.register",
  "kopf.daemon",
  "kopf.timer",
  "kopf.index",
  "kopf.subhandler",
  "kopf.register",
  "kopf.execute",
  "kopf.OperatorRegistry",
  "kopf.get_default_registry",
  "kopf.set_default_registry",
  "kopf.EVERYTHING",
  "kopf.Resource",
  "kopf.set_default_lifecycle",
  "kopf.lifecycles.all_at_once",
  "kopf.lifecycles.one_by_one",
  "kopf.lifecycles.randomized",
  "kopf.lifecycles.shuffled",
  "kopf.lifecycles.asap",
  // filters, markers, errors
  "kopf.PRESENT",
  "kopf.ABSENT",
  "kopf.all_",
  "kopf.any_",
  "kopf.none_",
  "kopf.not_",
  "kopf.PermanentError",
  "kopf.TemporaryError",
  "kopf.HandlerTimeoutError",
  "kopf.HandlerRetriesError",
  "kopf.AdmissionError",
  "kopf.LoginError",
  "kopf.ErrorsMode",
  "kopf.ErrorsMode.TEMPORARY",
  "kopf.ErrorsMode.PERMANENT",
  "kopf.ErrorsMode.IGNORED",
  // objects and state
  "kopf.Body",
  "kopf.Spec",
  "kopf.Patch",
  "kopf.Memo",
  "kopf.Index",
  "kopf.Store",
  "kopf.DiffItem",
  "kopf.DiffOperation",
  "kopf.Reason",
  "kopf.DaemonStoppingReason",
  "kopf.ProgressRecord",
  "kopf.ProgressStorage",
  "kopf.SmartProgressStorage",
  "kopf.AnnotationsProgressStorage",
  "kopf.StatusProgressStorage",
  "kopf.MultiProgressStorage",
  "kopf.DiffBaseStorage",
  "kopf.AnnotationsDiffBaseStorage",
  "kopf.StatusDiffBaseStorage",
  "kopf.MultiDiffBaseStorage",
  // events, logging, hierarchies
  "kopf.event",
  "kopf.info",
  "kopf.warn",
  "kopf.exception",
  "kopf.ObjectLogger",
  "kopf.LocalObjectLogger",
  "kopf.configure",
  "kopf.LogFormat",
  "kopf.adopt",
  "kopf.label",
  "kopf.harmonize_naming",
  "kopf.adjust_namespace",
  "kopf.append_owner_reference",
  "kopf.remove_owner_reference",
  "kopf.build_object_reference",
  "kopf.build_owner_reference",
  // running, logging in, admission, settings, testing
  "kopf.run",
  "kopf.operator",
  "kopf.spawn_tasks",
  "kopf.run_tasks",
  "kopf.ConnectionInfo",
  "kopf.login_with_kubeconfig",
  "kopf.login_with_service_account",
  "kopf.login_via_client",
  "kopf.login_via_pykube",
  "kopf.WebhookServer",
  "kopf.WebhookK3dServer",
  "kopf.WebhookMinikubeServer",
  "kopf.WebhookAutoServer",
  "kopf.WebhookAutoTunnel",
  "kopf.WebhookNgrokTunnel",
  "kopf.WebhookClientConfig",
  "kopf.WebhookFn",
  "kopf.OperatorSettings",
  "kopf.testing",
  "kopf.testing.KopfRunner",
  "kopf.cli.CLIControls",
  "kopf.cli.LogFormatParamType",
  // handler arguments and options
  ...["body", "spec", "meta", "status", "uid", "name", "namespace", "labels", "annotations"],
  ...["resource", "patch", "logger", "memo", "param", "retry", "started", "runtime", "reason"],
  ...["old", "new", "diff", "event", "type", "stopped", "settings", "dryrun", "subresource"],
  ...["warnings", "userinfo", "headers", "sslpeer", "**kwargs"],
  ...["id", "errors", "timeout", "retries", "backoff", "when", "field", "value", "registry"],
  ...["group", "version", "kind", "plural", "singular", "shortcut", "category", "optional"],
  ...["initial_delay", "cancellation_backoff", "cancellation_timeout", "cancellation_polling"],
  ...["interval", "idle", "sharp", "operation", "persistent", "side_effects", "ignore_failures"],
  // the settings the manual names
  "settings.posting.enabled",
  "settings.posting.level",
  "settings.watching.server_timeout",
  "settings.watching.client_timeout",
  "settings.watching.connect_timeout",
  "settings.watching.reconnect_backoff",
  "settings.batching.error_delays",
  "settings.networking.request_timeout",
  "settings.networking.connect_timeout",
  "settings.networking.error_backoffs",
  "settings.persistence.finalizer",
  "settings.persistence.progress_storage",
  "settings.persistence.diffbase_storage",
  "settings.admission.server",
  "settings.admission.managed",
  "settings.peering.name",
  "settings.peering.priority",
  "settings.peering.mandatory",
  "settings.peering.standalone",
  "settings.peering.stealth",
  "settings.execution",
  "settings.execution.executor",
  "settings.execution.max_workers",
  "settings.process",
  // the command line
  "kopf run",
  "kopf freeze",
  "kopf resume",
  ...["-m", "--module", "--verbose", "--debug", "--quiet", "--log-format", "--log-prefix"]
    .map((flag) => `kopf run ${flag}`),
  ...["--no-log-prefix", "--log-refkey", "-n", "--namespace", "-A", "--all-namespaces"]
    .map((flag) => `kopf run ${flag}`),
  ...["--liveness", "--standalone", "--peering", "--priority", "--dev"]
    .map((flag) => `kopf run ${flag}`),
  ...["--id", "--message", "--lifetime", "--priority", "--namespace", "--all-namespaces"]
    .map((flag) => `kopf freeze ${flag}`),
  "kopf freeze --peering",
  ...["--id", "--namespace", "--all-namespaces", "--peering"].map((flag) => `kopf resume ${flag}`),
];

interface Row {
  readonly line: number;
  readonly kopf: string[];
  readonly typescript: string[];
}

/** The code spans of a table cell. */
function spans(cell: string): string[] {
  return [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
}

/** The rows of the tables of the guide (not the header and separator rows). */
async function rows(): Promise<Row[]> {
  const text = await Deno.readTextFile(new URL("docs/migration.md", ROOT));
  const out: Row[] = [];
  text.split("\n").forEach((line, index) => {
    if (!line.startsWith("|") || /^\|\s*-/.test(line) || line.startsWith("| Kopf (Python)")) return;
    const cells = line.split(/(?<!\\)\|/).slice(1, -1);
    assertEquals(cells.length, 3, `docs/migration.md:${index + 1} must have 3 cells: ${line}`);
    out.push({ line: index + 1, kopf: spans(cells[0]), typescript: spans(cells[1]) });
  });
  return out;
}

interface DocDeclaration {
  readonly kind: string;
  readonly def: {
    readonly extends?: readonly { readonly repr?: string }[] | string;
    readonly properties?: readonly { readonly name: string }[];
    readonly methods?: readonly { readonly name: string }[];
    readonly tsType?: {
      readonly kind: string;
      readonly value?: readonly { readonly repr?: string }[] | unknown;
    };
  };
}

/** The symbols the entry points export by name, with their declarations (deno doc). */
async function exportedSymbols(): Promise<Map<string, DocDeclaration[]>> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["doc", "--json", ...ENTRY_POINTS],
    cwd: ROOT.pathname,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assertEquals(code, 0, new TextDecoder().decode(stderr));
  const doc = JSON.parse(new TextDecoder().decode(stdout));
  const symbols = new Map<string, DocDeclaration[]>();
  for (const module of Object.values(doc.nodes) as { symbols: unknown[] }[]) {
    for (const symbol of module.symbols as { name: string; declarations: DocDeclaration[] }[]) {
      symbols.set(symbol.name, [...symbols.get(symbol.name) ?? [], ...symbol.declarations]);
    }
  }
  return symbols;
}

/** Whether an exported type (or class) has the member, through what it extends. */
function hasMember(
  symbols: Map<string, DocDeclaration[]>,
  type: string,
  member: string,
  seen: Set<string> = new Set(),
): boolean {
  if (seen.has(type)) return false;
  seen.add(type);
  for (const declaration of symbols.get(type) ?? []) {
    const def = declaration.def;
    const own = [...def.properties ?? [], ...def.methods ?? []];
    if (own.some((m) => m.name === member)) return true;
    const bases: string[] = [];
    if (Array.isArray(def.extends)) bases.push(...def.extends.map((e) => e.repr ?? ""));
    else if (typeof def.extends === "string") bases.push(def.extends);
    if (def.tsType?.kind === "intersection" && Array.isArray(def.tsType.value)) {
      bases.push(...def.tsType.value.map((t: { repr?: string }) => t.repr ?? ""));
    }
    if (bases.some((base) => hasMember(symbols, base.replace(/<.*$/, ""), member, seen))) {
      return true;
    }
  }
  return false;
}

/** What is wrong with one name of the TypeScript column, if anything. */
function problemOf(
  span: string,
  symbols: Map<string, DocDeclaration[]>,
  commands: Map<string, Set<string>>,
  entryPoints: Set<string>,
): string | undefined {
  if (span.startsWith("kopf ")) {
    const [, name, ...rest] = span.split(" ");
    const flags = commands.get(name);
    if (flags === undefined) return `no subcommand "${name}"`;
    const missing = rest.filter((word) => word.startsWith("-") && !flags.has(word));
    return missing.length > 0 ? `kopf ${name} has no ${missing.join(", ")}` : undefined;
  }
  if (entryPoints.has(span)) return undefined;
  if (/^("[^"]*"|\d+)$/.test(span)) return undefined; // a literal value
  const path = span.replace(/^new /, "").replace(/\(.*\)$/, "");
  if (!/^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/.test(path)) return "not a name of any kind";
  const [head, ...members] = path.split(".");
  if (head === "kopf") {
    let value: unknown = kopf;
    for (const member of members) {
      if (value === null || value === undefined || !(member in Object(value))) {
        return `kopf has no ${path.slice(5)}`;
      }
      value = (value as Record<string, unknown>)[member];
    }
    return undefined;
  }
  if (head === "settings") {
    const [section, field, ...more] = members;
    const settings = new OperatorSettings() as unknown as Record<string, object>;
    if (!Object.hasOwn(settings, section)) return `no settings section ${section}`;
    if (field !== undefined && !(field in settings[section])) return `no field ${field}`;
    return more.length > 0 ? "too deep" : undefined;
  }
  if (!/^[A-Z]/.test(head)) return "neither kopf.x, settings.x, a type, nor a command";
  if (!symbols.has(head)) return `no entry point exports ${head}`;
  if (members.length > 1) return "too deep";
  if (members.length === 1 && !hasMember(symbols, head, members[0])) {
    return `${head} has no ${members[0]}`;
  }
  return undefined;
}

/** Each subcommand of the command line with its flags, short and long. */
function cliFlags(): Map<string, Set<string>> {
  const cli = buildCli() as unknown as {
    commands: { name(): string; options: { short?: string; long?: string }[] }[];
  };
  return new Map(cli.commands.map((command) => [
    command.name(),
    new Set(
      command.options.flatMap((o) => [o.short, o.long]).filter((f): f is string => !!f),
    ),
  ]));
}

Deno.test("every TypeScript name of docs/migration.md exists", async () => {
  const symbols = await exportedSymbols();
  const commands = cliFlags();
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT)));
  const entryPoints = new Set(
    Object.keys(config.exports).map((key) => `${config.name}${key.slice(1)}`),
  );
  const problems: string[] = [];
  for (const row of await rows()) {
    assert(row.kopf.length > 0 || row.typescript.length > 0, `line ${row.line} is empty`);
    for (const span of row.typescript) {
      const problem = problemOf(span, symbols, commands, entryPoints);
      if (problem !== undefined) {
        problems.push(`docs/migration.md:${row.line}: \`${span}\`: ${problem}`);
      }
    }
  }
  assertEquals(problems, []);
});

Deno.test("the check itself refuses names that do not exist", async () => {
  const symbols = await exportedSymbols();
  const commands = cliFlags();
  const none = new Set<string>();
  const check = (span: string) => problemOf(span, symbols, commands, none);
  assertEquals(check("kopf.on.create"), undefined);
  assertEquals(check("new kopf.OperatorSettings()"), undefined);
  assertEquals(check("kopf.on.creation"), "kopf has no on.creation");
  assertEquals(check("ChangingKwargs.spec"), undefined, "inherited from ResourceKwargs");
  assertEquals(check("ChangingKwargs.spek"), "ChangingKwargs has no spek");
  assertEquals(check("KopfRunnerOptions.cluster"), undefined);
  assertEquals(check("NoSuchType"), "no entry point exports NoSuchType");
  assertEquals(check("settings.posting.level"), undefined);
  assertEquals(check("settings.posting.lvl"), "no field lvl");
  assertEquals(check("settings.execution"), "no settings section execution");
  assertEquals(check("kopf run -v"), undefined);
  assertEquals(check("kopf run --bogus"), "kopf run has no --bogus");
  assertEquals(check("kopf thaw"), 'no subcommand "thaw"');
  assertEquals(check("spec"), "neither kopf.x, settings.x, a type, nor a command");
  assertEquals(check("a + b"), "not a name of any kind");
});

Deno.test("every value of the kopf namespace is in docs/migration.md", async () => {
  const named = new Set(
    (await rows()).flatMap((row) => row.typescript)
      .map((span) => span.replace(/^new /, ""))
      .filter((span) => span.startsWith("kopf."))
      .map((span) => span.slice(5).split(/[.(]/)[0]),
  );
  const missing = Object.keys(kopf).filter((name) => !named.has(name));
  assertEquals(missing, []);
});

Deno.test("every public name of Kopf's manual has a row in docs/migration.md", async () => {
  const rowsOf = await rows();
  const listed = new Set(rowsOf.flatMap((row) => row.kopf).map((span) => span.replace(/^@/, "")));
  const missing = MANUAL_NAMES.filter((name) => !listed.has(name));
  assertEquals(missing, []);
  // Each row of Kopf's names says what to use: a TypeScript name, or why there is none.
  for (const row of rowsOf) {
    assert(row.kopf.length > 0 || row.typescript.length > 0, `line ${row.line}`);
  }
});
