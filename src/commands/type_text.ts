/**
 * The text of the types that `kopf types` generates, as `deno fmt` writes it with its
 * default settings: a type as a tree (a name, a union, an array or a map), literals and
 * property names quoted, doc comments on one line or in a block, and a type on one line
 * where it fits, else broken the way `deno fmt` breaks it.
 *
 * @module
 */

/** The line width of `deno fmt`'s defaults, which the output keeps to where it can. */
const LINE_WIDTH = 80;

/** A type as the output writes it: a name, a union, an array or a map. */
export type TypeNode =
  | { readonly kind: "name"; readonly text: string }
  | { readonly kind: "union"; readonly members: readonly TypeNode[] }
  | { readonly kind: "array"; readonly element: TypeNode }
  | { readonly kind: "map"; readonly value: TypeNode };

export const name = (text: string): TypeNode => ({ kind: "name", text });
export const UNKNOWN = name("unknown");

export function union(members: readonly TypeNode[]): TypeNode {
  const flat: TypeNode[] = [];
  for (const member of members) {
    for (const m of member.kind === "union" ? member.members : [member]) {
      if (!flat.some((f) => f.kind === "name" && m.kind === "name" && f.text === m.text)) {
        flat.push(m);
      }
    }
  }
  return flat.length === 1 ? flat[0] : { kind: "union", members: flat };
}

export function literal(value: unknown): string {
  if (typeof value === "string") return quote(value);
  if (typeof value === "number" || typeof value === "boolean" || value === null) {
    return JSON.stringify(value);
  }
  return "unknown"; // an object in an enum: JSON, but no literal type for it
}

/** A string literal as `deno fmt` writes it: double quotes unless single ones escape less. */
export function quote(value: string): string {
  const double = JSON.stringify(value);
  if (!value.includes('"') || value.includes("'")) return double;
  return `'${double.slice(1, -1).replace(/\\"/g, '"')}'`;
}

export function propertyName(key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? key : quote(key);
}

function pad(level: number): string {
  return "  ".repeat(level);
}

/** A doc comment at an indentation level: one line if it fits, else a block. */
export function comment(level: number, lines: readonly string[]): string[] {
  if (lines.length === 0) return [];
  const safe = lines.map((line) => line.replace(/\*\//g, "*\\/"));
  const single = `${pad(level)}/** ${safe[0]} */`;
  if (safe.length === 1 && single.length <= LINE_WIDTH) return [single];
  return [
    `${pad(level)}/**`,
    ...safe.map((line) => (line === "" ? `${pad(level)} *` : `${pad(level)} * ${line}`)),
    `${pad(level)} */`,
  ];
}

/** A type on one line. */
export function inline(type: TypeNode): string {
  switch (type.kind) {
    case "name":
      return type.text;
    case "union":
      return type.members.map(inline).join(" | ");
    case "array":
      return type.element.kind === "union"
        ? `(${inline(type.element)})[]`
        : `${inline(type.element)}[]`;
    case "map":
      return `{ [key: string]: ${inline(type.value)} }`;
  }
}

/**
 * `head` + the type + `tail` at an indentation level, on one line if it fits, else broken
 * the way `deno fmt` breaks it: a union one member per line, a map's braces around its
 * index signature, an array of a union in parentheses, anything else on the next line.
 */
export function slotLines(level: number, head: string, type: TypeNode, tail: string): string[] {
  const single = `${pad(level)}${head}${inline(type)}${tail}`;
  if (single.length <= LINE_WIDTH) return [single];
  const inner = pad(level + 1);
  if (type.kind === "union") {
    return [
      `${pad(level)}${head.trimEnd()}`,
      ...type.members.flatMap((member, i) =>
        slotLines(level + 1, "| ", member, i === type.members.length - 1 ? tail : "")
      ),
    ];
  }
  if (type.kind === "array" && type.element.kind === "union") {
    return [
      `${pad(level)}${head}(`,
      ...type.element.members.map((member) => `${inner}| ${inline(member)}`),
      `${pad(level)})[]${tail}`,
    ];
  }
  if (type.kind === "map") {
    return [
      `${pad(level)}${head}{`,
      ...slotLines(level + 1, "[key: string]: ", type.value, ";"),
      `${pad(level)}}${tail}`,
    ];
  }
  return [`${pad(level)}${head.trimEnd()}`, `${inner}${inline(type)}${tail}`];
}
