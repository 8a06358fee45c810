/**
 * A kubeconfig file read as kubectl reads it: YAML whose plain `yes`/`no`/`on`/`off`/`y`/`n`
 * (and `true`/`false` in any of their cases) are booleans, as in the YAML 1.1 parser that
 * client-go decodes kubeconfigs with, and whose timestamps stay strings; then every field
 * of the clusters, users and contexts typed as client-go's structs type it. A value of the
 * wrong type -- a quoted `"false"` or a `0` for a boolean, a number for a token -- makes
 * kubectl refuse the whole file, and is refused here too, with one line naming the file,
 * the entry and the field (never a secret's value). Unknown fields are ignored, as there.
 *
 * @module
 */
import { isMapping } from "../structs/dicts.ts";
import { LoginError } from "../structs/errors.ts";
import type { ExecConfig } from "./exec_credentials.ts";
import { outsideContexts } from "../platform/async_context.ts";

/** A cluster entry (`clusters[].cluster`), typed. */
export interface ClusterEntry {
  server?: string;
  "certificate-authority"?: string;
  "certificate-authority-data"?: string;
  "insecure-skip-tls-verify"?: boolean;
  "tls-server-name"?: string;
  "proxy-url"?: string;
  "disable-compression"?: boolean;
  extensions?: { name?: string; extension?: unknown }[];
}

/** A user entry (`users[].user`), typed. */
export interface UserEntry {
  "client-certificate"?: string;
  "client-certificate-data"?: string;
  "client-key"?: string;
  "client-key-data"?: string;
  token?: string;
  tokenFile?: string;
  username?: string;
  password?: string;
  exec?: ExecConfig;
  "auth-provider"?: { name?: string; config?: Record<string, string> };
}

/** A context entry (`contexts[].context`), typed. */
export interface ContextEntry {
  cluster?: string;
  user?: string;
  namespace?: string;
}

/** One kubeconfig file's entries, by section, in the file's order. */
export interface KubeconfigEntries {
  clusters: [string, ClusterEntry][];
  users: [string, UserEntry][];
  contexts: [string, ContextEntry][];
  currentContext?: string;
}

/** Parse a kubeconfig's YAML as client-go's YAML 1.1 parser would; see the module docs. */
export async function parseKubeconfigYaml(text: string): Promise<unknown> {
  // Loaded on first use: ~9 MB of memory that operators without a kubeconfig (in a pod,
  // or with a login handler of their own) never need.
  const { parse } = await outsideContexts(() => import("yaml"));
  return parse(text, {
    version: "1.1",
    // client-go's parser keeps timestamps as strings and has no base-60 numbers.
    customTags: (tags) =>
      tags.filter((tag) =>
        typeof tag === "string" || (!tag.tag.endsWith(":timestamp") && tag.format !== "TIME")
      ),
  });
}

/** The typed entries of a parsed kubeconfig document (a mapping); see the module docs. */
export function decodeKubeconfig(doc: Record<string, unknown>, file: string): KubeconfigEntries {
  const top = new Fields(`The kubeconfig ${file}`, "", doc);
  const preferences = top.mapping("preferences");
  if (preferences !== undefined) {
    new Fields(top.where, "preferences", preferences).boolean("colors");
  }
  return {
    clusters: namedEntries(doc, "clusters", "cluster", file, cluster),
    users: namedEntries(doc, "users", "user", file, user),
    contexts: namedEntries(doc, "contexts", "context", file, context),
    currentContext: top.string("current-context") || undefined,
  };
}

function namedEntries<T>(
  doc: Record<string, unknown>,
  section: string,
  inner: string,
  file: string,
  decode: (fields: Fields) => T,
): [string, T][] {
  const list = doc[section];
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) {
    throw new LoginError(`The kubeconfig ${file} is invalid: "${section}" must be a list.`);
  }
  return list.map((item, i) => {
    if (!isMapping(item) || typeof item.name !== "string" || !item.name) {
      throw new LoginError(`The kubeconfig ${file} is invalid: ${section}[${i}] has no name.`);
    }
    const value = item[inner] ?? {};
    if (!isMapping(value)) {
      throw new LoginError(
        `The kubeconfig ${file} is invalid: "${inner}" of ${section} "${item.name}" must be a mapping.`,
      );
    }
    const where = `The kubeconfig ${file} is invalid: the ${inner} "${item.name}"`;
    return [item.name, decode(new Fields(where, "", value))];
  });
}

function cluster(fields: Fields): ClusterEntry {
  const entry: ClusterEntry = {};
  for (
    const key of [
      "server",
      "certificate-authority",
      "certificate-authority-data",
      "tls-server-name",
      "proxy-url",
    ] as const
  ) {
    const value = fields.string(key);
    if (value !== undefined) entry[key] = value;
  }
  for (const key of ["insecure-skip-tls-verify", "disable-compression"] as const) {
    const value = fields.boolean(key);
    if (value !== undefined) entry[key] = value;
  }
  const extensions = fields.list("extensions");
  if (extensions !== undefined) entry.extensions = extensions as ClusterEntry["extensions"];
  return entry;
}

function user(fields: Fields): UserEntry {
  const entry: UserEntry = {};
  for (
    const key of [
      "client-certificate",
      "client-certificate-data",
      "client-key",
      "client-key-data",
      "token",
      "tokenFile",
      "username",
      "password",
    ] as const
  ) {
    const value = fields.string(key);
    if (value !== undefined) entry[key] = value;
  }
  fields.string("as");
  fields.string("as-uid");
  fields.strings("as-groups");
  const provider = fields.mapping("auth-provider");
  if (provider !== undefined) {
    const inner = fields.within("auth-provider", provider);
    entry["auth-provider"] = { name: inner.string("name"), config: inner.stringMap("config") };
  }
  const exec = fields.mapping("exec");
  if (exec !== undefined) entry.exec = execConfig(fields.within("exec", exec));
  return entry;
}

function execConfig(fields: Fields): ExecConfig {
  const env = fields.list("env")?.map((item, i) => {
    const variable = fields.within(`env[${i}]`, isMapping(item) ? item : {});
    if (!isMapping(item)) variable.fail("a mapping with name and value", item);
    return { name: variable.string("name"), value: variable.string("value") };
  });
  return {
    apiVersion: fields.string("apiVersion"),
    command: fields.string("command"),
    args: fields.strings("args"),
    env: env ?? null,
    installHint: fields.string("installHint"),
    provideClusterInfo: fields.boolean("provideClusterInfo"),
    interactiveMode: fields.string("interactiveMode"),
  };
}

function context(fields: Fields): ContextEntry {
  const entry: ContextEntry = {};
  for (const key of ["cluster", "user", "namespace"] as const) {
    const value = fields.string(key);
    if (value !== undefined) entry[key] = value;
  }
  return entry;
}

/** The fields of one mapping, read with their types; a wrong type is a {@link LoginError}. */
class Fields {
  constructor(
    /** The start of a message: what holds the fields. */
    readonly where: string,
    /** The path of this mapping within the entry, e.g. `exec.`; empty at its top. */
    readonly path: string,
    readonly values: Record<string, unknown>,
  ) {}

  /** The fields of a mapping within this one. */
  within(key: string, values: Record<string, unknown>): Fields {
    return new Fields(this.where, `${this.path}${key}.`, values);
  }

  /** A string field; absent or null is `undefined`. */
  string(key: string): string | undefined {
    const value = this.values[key];
    if (value === undefined || value === null || typeof value === "string") {
      return value ?? undefined;
    }
    return this.fail("a string (quote it)", value, key, false);
  }

  /** A boolean field: YAML's true or false (yes/no/on/off/y/n unquoted); absent is `undefined`. */
  boolean(key: string): boolean | undefined {
    const value = this.values[key];
    if (value === undefined || value === null || typeof value === "boolean") {
      return value ?? undefined;
    }
    return this.fail("true or false, unquoted", value, key, true);
  }

  /** A list of strings. */
  strings(key: string): string[] | undefined {
    const list = this.list(key);
    if (list === undefined) return undefined;
    for (const item of list) {
      if (typeof item !== "string") this.fail("a list of strings (quote them)", item, key, false);
    }
    return list as string[];
  }

  /** A mapping of strings to strings. */
  stringMap(key: string): Record<string, string> | undefined {
    const map = this.mapping(key);
    if (map === undefined) return undefined;
    const fields = this.within(key, map);
    for (const name of Object.keys(map)) fields.string(name);
    return map as Record<string, string>;
  }

  /** A list field. */
  list(key: string): unknown[] | undefined {
    const value = this.values[key];
    if (value === undefined || value === null) return undefined;
    if (Array.isArray(value)) return value;
    return this.fail("a list", value, key, false);
  }

  /** A mapping field. */
  mapping(key: string): Record<string, unknown> | undefined {
    const value = this.values[key];
    if (value === undefined || value === null) return undefined;
    if (isMapping(value)) return value;
    return this.fail("a mapping", value, key, false);
  }

  /** Refuse a value: what it must be, and what it is (its value only if `shown`). */
  fail(must: string, value: unknown, key = "", shown = false): never {
    const field = `${this.path}${key}`.replace(/\.$/, "");
    const is = shown ? `${JSON.stringify(value)} (${typeName(value)})` : typeName(value);
    throw new LoginError(
      `${this.where} has ${field} set to ${is}; it must be ${must}, as kubectl reads it.`,
    );
  }
}

function typeName(value: unknown): string {
  if (Array.isArray(value)) return "a list";
  if (value instanceof Uint8Array) return "binary data";
  if (isMapping(value)) return "a mapping";
  const type = typeof value;
  return type === "string" ? "a string" : type === "number" ? "a number" : `a ${type}`;
}
