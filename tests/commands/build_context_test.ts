/**
 * The build context of the Dockerfile recipe: which settings of a Deno configuration
 * lead out of the directory the image is built from, and JSONC read as JSON.
 */
import { contextEscapes, stripJsonComments } from "../../src/commands/build_context.ts";
import { assertEquals } from "../assert.ts";

const CONTEXT = "file:///home/me/op/";
const CONFIG = `${CONTEXT}deno.json`;

Deno.test("paths inside the context, packages and URLs stay; others are named", () => {
  const config = {
    imports: {
      "@kopf/kopf": "../kopf/mod.ts",
      "@kopf/kopf/cli": "file:///home/me/kopf/src/cli/main.ts",
      local: "./lib/mod.ts",
      nested: "lib/../lib/x.ts",
      yaml: "npm:yaml@^2.8.1",
      std: "jsr:@std/path@^1",
      remote: "https://example.com/x.ts",
      inside: "file:///home/me/op/vendor/x.ts",
    },
    scopes: { "./lib/": { dep: "/opt/dep.ts" } },
    workspace: ["./vendor/kopf", "../shared"],
    links: ["vendor/pkg"],
  };
  assertEquals(contextEscapes(JSON.stringify(config), CONFIG, CONTEXT), [
    { setting: 'imports["@kopf/kopf"]', value: "../kopf/mod.ts" },
    { setting: 'imports["@kopf/kopf/cli"]', value: "file:///home/me/kopf/src/cli/main.ts" },
    { setting: 'scopes["./lib/"]["dep"]', value: "/opt/dep.ts" },
    { setting: "workspace", value: "../shared" },
  ]);
  // A directory beside the context whose name starts like it is outside too.
  const beside = JSON.stringify({ imports: { x: "../op-2/x.ts" } });
  assertEquals(contextEscapes(beside, CONFIG, CONTEXT), [
    { setting: 'imports["x"]', value: "../op-2/x.ts" },
  ]);
  assertEquals(contextEscapes('{"workspace": {"members": ["../up"]}}', CONFIG, CONTEXT), [
    { setting: "workspace", value: "../up" },
  ]);
  assertEquals(contextEscapes('{"importMap": "../map.json"}', CONFIG, CONTEXT), [
    { setting: "importMap", value: "../map.json" },
  ]);
  assertEquals(contextEscapes("{}", CONFIG, CONTEXT), []);
});

Deno.test("JSONC: comments and trailing commas go, strings stay as they are", () => {
  const text = `{
    // the framework
    "imports": { "a": "./x // not a comment", /* gone */ "b": "https://e.com/*y*/", },
  }`;
  assertEquals(JSON.parse(stripJsonComments(text)), {
    imports: { a: "./x // not a comment", b: "https://e.com/*y*/" },
  });
  assertEquals(JSON.parse(stripJsonComments('{"s": "a\\"b, }"}')), { s: 'a"b, }' });
});
