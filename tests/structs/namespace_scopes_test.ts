import { assert, assertEquals, assertThrows } from "../assert.ts";
import { ConfigurationError } from "../../src/structs/errors.ts";
import {
  compileGlob,
  isServedNamespace,
  literalNamespaces,
  makeScope,
  matchNamespace,
  needsNamespaceWatching,
} from "../../src/structs/namespace_scopes.ts";

function served(pattern: string | RegExp, names: string[]): string[] {
  return names.filter((name) => matchNamespace(name, pattern));
}

Deno.test("a plain name matches only itself", () => {
  assertEquals(served("default", ["default", "default2", "xdefault", ""]), ["default"]);
});

Deno.test("a star matches any run of characters, including none", () => {
  const names = ["app-pr-123-x", "pr-123-", "-pr-123-", "app-pr-1234", "app-pr-12"];
  assertEquals(served("*-pr-123-*", names), ["app-pr-123-x", "-pr-123-"]);
  assertEquals(served("*", ["a", "", "kube-system"]), ["a", "", "kube-system"]);
});

Deno.test("a question mark matches exactly one character", () => {
  assertEquals(served("ns-?", ["ns-1", "ns-", "ns-12", "ns-a"]), ["ns-1", "ns-a"]);
});

Deno.test("character classes accept members, ranges and negation", () => {
  const names = ["ns-a", "ns-b", "ns-c", "ns-d", "ns-1", "ns--"];
  assertEquals(served("ns-[ab]", names), ["ns-a", "ns-b"]);
  assertEquals(served("ns-[a-c]", names), ["ns-a", "ns-b", "ns-c"]);
  assertEquals(served("ns-[!a-c]", names), ["ns-d", "ns-1", "ns--"]);
  assertEquals(served("ns-[a-]", names), ["ns-a", "ns--"]);
});

Deno.test("unusual classes follow the shell rules: literal brackets, reversed ranges", () => {
  assert(matchNamespace("a]", "a[]]"), "a leading ] is a member of the class");
  assert(matchNamespace("x", "[!]]"), "a negated class with a leading ]");
  assert(!matchNamespace("]", "[!]]"));
  assert(matchNamespace("a[", "a["), "an unclosed bracket is literal");
  assert(!matchNamespace("z", "[z-a]"), "a reversed range holds nothing");
  assert(matchNamespace("^", "[^a]"), "a caret is a plain member, not a negation");
  assert(!matchNamespace("b", "[^a]"));
});

Deno.test("regular-expression metacharacters in globs are literal", () => {
  assert(matchNamespace("a.b", "a.b"));
  assert(!matchNamespace("axb", "a.b"));
  assert(matchNamespace("a+(b)", "a+(b)"));
  assert(!matchNamespace("aab", "a+b"));
});

Deno.test("a negation alone serves everything except what it excludes", () => {
  const names = ["myapp-pr-123-x", "myapp-live", "kube-system"];
  assertEquals(served("!*-pr-123-*", names), ["myapp-live", "kube-system"]);
});

Deno.test("the first glob decides; later globs exclude and re-include (the manual's example)", () => {
  const pattern = "myapp-*,!*-pr-*,*-pr-123";
  assert(matchNamespace("myapp-live", pattern));
  assert(!matchNamespace("myapp-pr-456", pattern));
  assert(matchNamespace("myapp-pr-123", pattern));
  assert(!matchNamespace("otherapp-live", pattern));
  assert(!matchNamespace("otherapp-pr-123", pattern), "not matched by the decisive first glob");
});

Deno.test("with a leading negation, a later inclusion re-includes any namespace", () => {
  const pattern = "!*-pr-*, *pr-123";
  assert(matchNamespace("otherapp-pr-123", pattern), "the implied * made it match first");
  assert(!matchNamespace("myapp-pr-456", pattern));
  assert(matchNamespace("anything", pattern));
});

Deno.test("spaces around the globs of a list are ignored", () => {
  assert(matchNamespace("ax", " a* , !ab "));
  assert(!matchNamespace("ab", " a* , !ab "));
  assert(!matchNamespace("a", "*, !a "));
});

Deno.test("an empty pattern serves nothing", () => {
  assertEquals(served("", ["a", "default"]), []);
});

Deno.test("regular expressions must match the whole name and keep their flags", () => {
  assert(matchNamespace("team-a", /team-\w+/));
  assert(!matchNamespace("xteam-a", /team-\w+/));
  assert(matchNamespace("TEAM-A", /team-a/i));
  const global = /ns\d/g;
  assert(matchNamespace("ns1", global));
  assert(matchNamespace("ns1", global), "a global regexp does not alternate between calls");
});

Deno.test("several patterns combine: a namespace is served when any of them matches", () => {
  const scope = makeScope({ namespaces: ["default", "team-*,!team-x", /^prod-\d+$/] });
  const names = ["default", "team-a", "team-x", "prod-1", "prod-a", "other"];
  assertEquals(names.filter((n) => isServedNamespace(n, scope)), [
    "default",
    "team-a",
    "prod-1",
  ]);
});

Deno.test("a scope with no patterns serves no namespace", () => {
  const scope = makeScope({ namespaces: [] });
  assert(!isServedNamespace("default", scope));
});

Deno.test("a cluster-wide scope serves every namespace and watches none", () => {
  const scope = makeScope({ clusterwide: true });
  assert(isServedNamespace("anything", scope));
  assertEquals(needsNamespaceWatching(scope), false);
});

Deno.test("a scope cannot be both cluster-wide and restricted to namespaces", () => {
  assertThrows(
    () => makeScope({ clusterwide: true, namespaces: ["a"] }),
    ConfigurationError,
    "not both",
  );
});

Deno.test("only real patterns need the cluster's namespaces to be watched", () => {
  assertEquals(needsNamespaceWatching(makeScope({ namespaces: ["a", "b"] })), false);
  assertEquals(needsNamespaceWatching(makeScope({ namespaces: ["a", "b-*"] })), true);
  assertEquals(needsNamespaceWatching(makeScope({ namespaces: ["!a"] })), true);
  assertEquals(needsNamespaceWatching(makeScope({ namespaces: [/a/] })), true);
});

Deno.test("the literal names are the patterns without glob, negation or list syntax", () => {
  const patterns = [
    "default",
    "team-*",
    "!x",
    "a,b",
    "ns-?",
    "ns-[ab]",
    / re /,
    " spaced ",
    "",
    "x",
  ];
  assertEquals(literalNamespaces(patterns), ["default", "spaced", "x"]);
  assertEquals(literalNamespaces(["a", "a"]), ["a"], "duplicates are listed once");
});

Deno.test("compiled globs are anchored at both ends", () => {
  assert(compileGlob("a*").test("abc"));
  assert(!compileGlob("a*").test("xabc"));
  assert(!compileGlob("b").test("abc"));
});
