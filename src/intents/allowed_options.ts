/**
 * Which registration function accepts which option, and why one that is not accepted is
 * not: the message says who accepts it instead, or what to do.
 *
 * Apart from the options' types (`handler_options.ts`) and the checks of their values
 * (`option_normalizing.ts`): a table of names, read first.
 *
 * @module
 */
import type { Registrar } from "./handler_options.ts";

const COMMON = ["id", "param", "registry"];
/** Options of the top-level registrations only (sub-handlers run in their parent's calls). */
const TOP = [...COMMON, "rbac"];
const SELECTOR = ["group", "version", "kind", "plural", "singular", "shortcut", "category"];
const RETRY = ["errors", "timeout", "retries", "backoff"];
const FILTERS = ["labels", "annotations", "field", "value", "when"];
const CHANGE = ["old", "new"];
const WEBHOOK = ["operation", "subresource", "persistent", "sideEffects", "ignoreFailures"];
const DAEMON = [
  "initialDelay",
  "cancellationBackoff",
  "cancellationTimeout",
  "cancellationPolling",
];
const TIMER = ["interval", "idle", "sharp", "initialDelay"];
const CHILD = ["childLabels", "childWhen", "anyOwner", "unlabelled"];
const WATCHED = ["metadataOnly"];
const CHANGING = [...TOP, ...SELECTOR, ...RETRY, ...FILTERS, ...WATCHED];
const ACTIVITY = [...TOP, ...RETRY];

/** The options each registration function accepts. */
export const ALLOWED_OPTIONS: Readonly<Record<Registrar, readonly string[]>> = {
  "on.event": [...TOP, ...SELECTOR, ...FILTERS, ...WATCHED],
  "on.create": CHANGING,
  "on.update": [...CHANGING, ...CHANGE],
  "on.delete": [...CHANGING, "optional"],
  "on.resume": [...CHANGING, "deleted"],
  "on.field": [...CHANGING, ...CHANGE],
  "daemon": [...CHANGING, ...DAEMON],
  "timer": [...CHANGING, ...TIMER],
  "index": CHANGING,
  "on.validate": [...TOP, ...SELECTOR, ...FILTERS, ...WEBHOOK],
  "on.mutate": [...TOP, ...SELECTOR, ...FILTERS, ...WEBHOOK],
  "on.child": [...TOP, ...RETRY, ...FILTERS, ...WATCHED, ...CHILD],
  "on.startup": ACTIVITY,
  "on.cleanup": ACTIVITY,
  "on.login": ACTIVITY,
  "on.probe": ACTIVITY,
  "subhandler": [...COMMON, ...RETRY, ...FILTERS, ...CHANGE],
  "register": [...COMMON, ...RETRY, ...FILTERS, ...CHANGE],
};

/** The names of the selector keywords inside options. */
export const SELECTOR_OPTIONS: readonly string[] = SELECTOR;

const ADMISSION_ONLY = new Set(WEBHOOK);
const RETRY_SET = new Set(RETRY);

function whoAccepts(option: string): Registrar[] {
  return (Object.keys(ALLOWED_OPTIONS) as Registrar[]).filter((r) =>
    ALLOWED_OPTIONS[r].includes(option)
  );
}

/** Explains why an option is not accepted by a registrar. */
export function rejection(registrar: Registrar, option: string): string {
  const allowed = ALLOWED_OPTIONS[registrar];
  if (RETRY_SET.has(option) && (registrar === "on.validate" || registrar === "on.mutate")) {
    return `option "${option}" is not accepted: admission handlers are never retried ` +
      "(raise kopf.AdmissionError to reject a request with a message and code)";
  }
  if (RETRY_SET.has(option) && registrar === "on.event") {
    return `option "${option}" is not accepted: event handlers are never retried ` +
      "(use kopf.on.create/update/delete/resume for retried handlers)";
  }
  if (option === "rbac" && (registrar === "subhandler" || registrar === "register")) {
    return 'option "rbac" is not accepted for sub-handlers, which run inside their parent: ' +
      "declare the rules on the parent handler";
  }
  if (SELECTOR.includes(option) && registrar === "on.child") {
    return `option "${option}" is not accepted by kopf.on.child: name the parent and the child ` +
      'resources as its first two arguments (e.g. "kopfexamples.kopf.dev", "configmaps")';
  }
  if (SELECTOR.includes(option)) {
    return `option "${option}" selects resources, but kopf.${registrar} handlers serve none; ` +
      "remove it";
  }
  if (ADMISSION_ONLY.has(option)) {
    return `option "${option}" is only for admission handlers (kopf.on.validate/mutate)`;
  }
  const elsewhere = whoAccepts(option);
  if (elsewhere.length > 0) {
    return `option "${option}" is not accepted here, only by ${
      elsewhere.map((r) => `kopf.${r}`).join(", ")
    }`;
  }
  return `unknown option "${option}"; valid options are: ${allowed.join(", ")}`;
}
