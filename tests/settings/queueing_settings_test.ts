/** The queueing section: its defaults, its checks, and the one rule of an object's tenant. */
import { assertEquals, assertThrows } from "../assert.ts";
import { ConfigurationError } from "../../src/structs/errors.ts";
import { OperatorSettings } from "../../src/settings/operator_settings.ts";
import { tenantOf } from "../../src/settings/queueing_settings.ts";

Deno.test("the queueing section takes turns by namespace by default, and takes bursts in", () => {
  const settings = new OperatorSettings();
  assertEquals(settings.queueing.fairness, "namespace");
  assertEquals(settings.queueing.burstLimit, 10_000);
  const custom = new OperatorSettings({
    queueing: { fairness: { label: "team" }, burstLimit: 10 },
  });
  assertEquals([custom.queueing.fairness, custom.queueing.burstLimit], [{ label: "team" }, 10]);
});

Deno.test("a bad fairness or burst limit is one line naming the setting and what it must be", () => {
  for (const fairness of ["team", { label: "bad key!" }, { label: "" }, {}, null, 7]) {
    const error = assertThrows(
      () => new OperatorSettings({ queueing: { fairness: fairness as never } }),
      ConfigurationError,
    );
    assertEquals(
      error.message.split("; got")[0],
      'settings.queueing.fairness must be "namespace", { label: "<a label key>" } or a ' +
        "function of the body returning a string",
    );
  }
  const settings = new OperatorSettings();
  settings.queueing.burstLimit = 0;
  assertThrows(() => settings.validate(), ConfigurationError, "settings.queueing.burstLimit must");
  settings.queueing.burstLimit = 5;
  settings.queueing.fairness = (body) => body.metadata?.name ?? "";
  settings.validate();
});

Deno.test("an object's tenant: its namespace, a label's value, or what a function says", () => {
  const body = { metadata: { namespace: "ns", name: "x", labels: { team: "t1" } } };
  const cluster = { metadata: { name: "node-1" } };
  assertEquals([tenantOf("namespace", body), tenantOf("namespace", cluster)], ["ns", ""]);
  assertEquals(tenantOf({ label: "team" }, body), "t1");
  assertEquals(tenantOf({ label: "other" }, body), "", "unlabelled: the tenant of none");
  assertEquals(tenantOf((b) => `${b.metadata?.name}!`, body), "x!");
  assertThrows(() => tenantOf(() => 5 as unknown as string, body), TypeError, "not a string");
});
