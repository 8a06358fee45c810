import { assertEquals } from "../assert.ts";
import { Selector } from "../../src/structs/resource_selectors.ts";
import { Resource } from "../../src/structs/resources.ts";
import {
  editDistance,
  suggestResources,
  typoMessage,
} from "../../src/structs/resource_suggestions.ts";

const served = [
  new Resource({
    group: "",
    version: "v1",
    plural: "configmaps",
    kind: "ConfigMap",
    shortcuts: ["cm"],
  }),
  new Resource({
    group: "apps",
    version: "v1",
    plural: "deployments",
    kind: "Deployment",
    shortcuts: ["deploy"],
  }),
  new Resource({ group: "example.com", version: "v1", plural: "webapps", kind: "WebApp" }),
  new Resource({ group: "", version: "v1", plural: "pods", kind: "Pod", shortcuts: ["po"] }),
];

Deno.test("the edit distance counts insertions, deletions, substitutions and swaps", () => {
  assertEquals(editDistance("webaps", "webapps", 2), 1);
  assertEquals(editDistance("confgmaps", "configmaps", 2), 1);
  assertEquals(editDistance("deploymnets", "deployments", 2), 1); // a swap
  assertEquals(editDistance("pods", "pods", 2), 0);
  assertEquals(editDistance("secrets", "configmaps", 2), 3); // beyond the limit: limit + 1
});

Deno.test("a name a typo away from served resources is given their names, nearest first", () => {
  assertEquals(suggestResources(Selector.parse(["webaps"]), served), ["webapps.example.com"]);
  assertEquals(suggestResources(Selector.parse(["confgmaps"]), served), ["configmaps"]);
  assertEquals(suggestResources(Selector.parse(["Deploymnet"]), served), ["deployments.apps"]);
  assertEquals(suggestResources(Selector.parse(["ConfigMaps"]), served), ["configmaps"]);
});

Deno.test("no suggestion for a group named, a short name, or a name far from all", () => {
  assertEquals(suggestResources(Selector.parse(["webaps.example.com"]), served), []);
  assertEquals(suggestResources(Selector.parse(["pdo"]), served), []); // too short to guess
  assertEquals(suggestResources(Selector.parse(["kopfexamples"]), served), []);
  assertEquals(typoMessage(Selector.parse(["kopfexamples"]), served, "x"), undefined);
});

Deno.test("the line names the typo, the suggestion, and how to wait for a resource to come", () => {
  assertEquals(
    typoMessage(Selector.parse(["webaps"]), served, "the resource of handlers"),
    'No served resource is named "webaps" (the resource of handlers); did you mean ' +
      '"webapps.example.com"? Fix the name; or, if "webaps" is a resource still to come ' +
      '(a CRD applied later), name it with its group (e.g. "webaps.example.com") and the ' +
      "operator waits for it.",
  );
});
