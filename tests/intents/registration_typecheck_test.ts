/**
 * Registration mistakes are named on the first line of the compiler's error: each number
 * of arguments has one form (no "No overload matches this call" listing forms that do not
 * fit), and the options are checked for what the registration refuses at run time — a
 * timer without `interval`/`idle`, a field handler without `field`, an unknown option,
 * `value` with `old`/`new`, a filter of values without `field`.
 */
import { assertEquals } from "../assert.ts";
import { checkSnippets, MOD } from "../typecheck.ts";
import { quote } from "../doc_quotes.ts";

/** The message of a timer without an interval, as docs/handlers-and-causes.md quotes it. */
const TIMER = await quote("handlers-and-causes.md", '"kopf.timer needs ');

const HEAD = `import { kopf, type Index } from "${MOD}";
interface Example { spec?: { field: string }; status?: { count?: number } }
const kex = kopf.resource<Example>("kopf.dev", "v1", "kopfexamples");
`;

/** Every form of every registration, with and without type arguments: all compile. */
const RIGHT = `${HEAD}
kopf.on.create("kex", ({ spec, name }) => [spec.x, name.length]);
kopf.on.create(kex, ({ spec, patch }) => {
  patch.status.count = spec.field.length;
});
kopf.on.create(kex, { when: ({ spec }) => spec.field === "" }, ({ spec }) => spec.field);
kopf.on.create("kex", {
  when: ({ spec }) => spec.x === "",
  labels: { a: kopf.PRESENT, b: (value, { name }) => value === name },
}, ({ spec }) => spec.x);
kopf.on.create("kopf.dev", "kex", ({ spec }) => spec.x);
kopf.on.create("kopf.dev", "kex", { retries: 1 }, ({ spec }) => spec.x);
kopf.on.create("kopf.dev", "v1", "kex", ({ spec }) => spec.x);
kopf.on.create("kopf.dev", "v1", "kex", { id: "a" }, ({ spec }) => spec.x);
kopf.on.event((resource) => resource.group === "", ({ type }) => type);
kopf.on.event((resource) => resource.group === "", { labels: { a: "b" } }, ({ type }) => type);
kopf.on.event(kopf.EVERYTHING, { when: ({ type }) => type === "ADDED" }, ({ type }) => type);
kopf.on.event({ kind: "KopfExample", when: ({ type }) => type !== null }, ({ body }) => body);
kopf.on.create<{ a: number }, { b: string }, { idx: Index<string, string> }>(
  kex,
  ({ spec, status, idx }) => [spec.a, status.b, idx],
);
kopf.on.create<{ a: number }>("kopf.dev", "kex", { when: ({ spec }) => spec.a > 1 }, () => {});
kopf.timer("kex", { interval: 1 }, ({ spec }) => spec.x);
kopf.timer("kex", { idle: 1, sharp: true }, ({ spec }) => spec.x);
kopf.timer(kex, { interval: 1, when: ({ spec }) => spec.field === "" }, ({ spec }) => spec.field);
kopf.timer({ kind: "KopfExample", interval: 3 }, ({ spec }) => spec.x);
kopf.timer("kopf.dev", "kex", { interval: 3 }, ({ spec }) => spec.x);
kopf.timer("kopf.dev", "v1", "kex", { interval: 3 }, ({ spec }) => spec.x);
kopf.timer<{ a: number }, unknown, { idx: Index<string, string> }>(
  "kex",
  { interval: 5 },
  ({ spec, idx }) => [spec.a, idx],
);
const schedule = { interval: 5 };
kopf.timer("kex", schedule, () => {});
kopf.on.field("kex", { field: "spec.x", old: 1, new: kopf.ABSENT }, ({ old, new: now }) => [old, now]);
kopf.on.field(kex, { field: ["spec", "field"] }, ({ spec }) => spec.field);
kopf.on.update("kex", { field: "spec.x", value: 1 }, () => {});
kopf.on.validate("kex", { operation: ["CREATE"] }, ({ warnings }) => warnings.push("x"));
kopf.daemon("kex", { cancellationTimeout: 1 }, ({ stopped }) => stopped.wait(1));
kopf.index("kex", ({ name, uid }) => ({ [name]: uid }));
`;

/** One mistake each, and the first line of the one error it must give. */
const WRONG: Record<string, [string, string]> = {
  timer: [
    `kopf.timer("kex", {}, () => {});`,
    `Argument of type '{}' is not assignable to parameter of type ` +
    `'${TIMER}'.`,
  ],
  typedTimer: [
    `kopf.timer(kex, { sharp: true, when: ({ spec }) => spec.field === "" }, () => {});`,
    `'${TIMER}'.`,
  ],
  timerByGroupAndVersion: [
    `kopf.timer("kopf.dev", "v1", "kex", { sharp: true }, () => {});`,
    `'${TIMER}'.`,
  ],
  field: [
    `kopf.on.field("kex", {}, () => {});`,
    `Argument of type '{}' is not assignable to parameter of type ` +
    `'"kopf.on.field needs the option field, the field to watch, e.g. { field: 'spec.size' }"'.`,
  ],
  unknown: [
    `kopf.on.create("kex", { retires: 3 }, () => {});`,
    `Object literal may only specify known properties, but 'retires' does not exist in type ` +
    `'CreateOptions<ChangingKwargs<ReadonlyJsonObject, ReadonlyJsonObject>>'. ` +
    `Did you mean to write 'retries'?`,
  ],
  unknownByGroup: [
    `kopf.on.update("kopf.dev", "kex", { feild: "spec.x" }, () => {});`,
    `Object literal may only specify known properties, but 'feild' does not exist in type ` +
    `'UpdateOptions<ChangingKwargs<ReadonlyJsonObject, ReadonlyJsonObject>>'. ` +
    `Did you mean to write 'field'?`,
  ],
  unknownOfTimer: [
    `kopf.timer("kex", { intervall: 3 }, () => {});`,
    `Object literal may only specify known properties, but 'intervall' does not exist in type ` +
    `'TimerOptions<TimerKwargs<ReadonlyJsonObject, ReadonlyJsonObject>>'. ` +
    `Did you mean to write 'interval'?`,
  ],
  notRetried: [
    `kopf.on.validate("kex", { retries: 3 }, () => {});`,
    `Object literal may only specify known properties, and 'retries' does not exist in type ` +
    `'WebhookOptions<WebhookKwargs<ReadonlyJsonObject, ReadonlyJsonObject>>'.`,
  ],
  kwarg: [
    `kopf.on.create("kex", ({ nmae }) => nmae);`,
    `Property 'nmae' does not exist on type ` +
    `'ChangingKwargs<ReadonlyJsonObject, ReadonlyJsonObject>'.`,
  ],
  typedKwarg: [
    `kopf.timer(kex, { interval: 1 }, ({ sepc }) => sepc);`,
    `Property 'sepc' does not exist on type ` +
    `'TimerKwargs<{ field: string; }, { count?: number | undefined; }>'.`,
  ],
  valueWithOld: [
    `kopf.on.update("kex", { field: "spec.x", value: 1, old: 2 }, () => {});`,
    `Type 'number' is not assignable to type ` +
    `'"the options value and old/new cannot be combined: use either value or old/new"'.`,
  ],
  valueWithoutField: [
    `kopf.on.create("kex", { value: 1 }, () => {});`,
    `Argument of type '{ value: number; }' is not assignable to parameter of type ` +
    `'"the options value, old and new filter a field's value: give the option field too"'.`,
  ],
  keywordsOnly: [
    `kopf.on.event({ kind: "KopfExample", new: 1 }, () => {});`,
    `Object literal may only specify known properties, and 'new' does not exist in type ` +
    `'EventHandlerOptions<EventKwargs<ReadonlyJsonObject, ReadonlyJsonObject>>'.`,
  ],
};

Deno.test("registration mistakes are named on the first line of the one error they give", async () => {
  const snippets = Object.fromEntries(
    Object.entries(WRONG).map(([name, [code]]) => [name, `${HEAD}${code}\n`]),
  );
  const result = await checkSnippets({ right: RIGHT, ...snippets });
  assertEquals(result.errors.get("right"), undefined, result.output);
  const firstLines = Object.fromEntries(
    [...result.errors].map(([name, errors]) => [name, errors.map((e) => e.first)]),
  );
  const expected = Object.fromEntries(
    Object.entries(WRONG).map(([name, [, first]]) => [name, [first]]),
  );
  // The partial messages (the argument's type left out) are checked as a line's end.
  for (const [name, [first]] of Object.entries(firstLines)) {
    const wanted = expected[name]?.[0];
    if (wanted !== undefined && wanted.startsWith("'") && first.endsWith(wanted)) {
      expected[name] = [first];
    }
  }
  assertEquals(firstLines, expected, result.output);
});
