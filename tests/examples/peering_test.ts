/**
 * examples/06-peering: a deployed operator pauses while one with --dev runs, resumes when
 * it exits, and pauses again for `kopf freeze` until `kopf resume`.
 */
import { assertEquals } from "../assert.ts";
import { parseAllDocuments } from "yaml";
import { freezeCommand, resumeCommand } from "../../src/commands/freeze.ts";
import { KopfRunner } from "../../src/testing/runner.ts";
import type { FakeCluster } from "../../src/testing/mod.ts";
import { clusterWithCrd, exampleFile, KIND, manifest, NAME, settled } from "./helpers.ts";

const EXAMPLE = exampleFile("06-peering");

/** `kopf freeze|resume <args>` against the cluster, in this process. */
async function kopf(name: "freeze" | "resume", args: string[], cluster: FakeCluster) {
  const context = {
    login: () => Promise.resolve(cluster.connectionInfo),
    configureLogging: false, // the operators' output stays where it goes
    embedded: true,
  };
  const command = name === "freeze" ? freezeCommand(context) : resumeCommand(context);
  await command.parseAsync(args, { from: "user" });
}

Deno.test("06-peering: the deployed operator makes way for --dev, and for kopf freeze", async () => {
  await using cluster = await clusterWithCrd();
  const peeringCrds = await Deno.readTextFile(
    new URL("../../examples/peering.yaml", import.meta.url),
  );
  for (const document of parseAllDocuments(peeringCrds)) cluster.create(document.toJSON());
  cluster.create({
    apiVersion: "kopf.dev/v1",
    kind: "KopfPeering",
    metadata: { namespace: "default", name: "default" },
  });

  // The developer's operator first; then the deployed one, which pauses from the start.
  // (Both run in this process and share its log output: the lines of interest are A's.)
  const dev = await KopfRunner.start(["run", "-n", "default", "--dev", EXAMPLE], { cluster });
  const deployed = await KopfRunner.start(["run", "-n", "default", "-v", EXAMPLE], { cluster });
  try {
    await deployed.waitForOutput(/Pausing operations in favour of .*\(priority 666\)/);
    await dev.stop();
    await deployed.waitForOutput("Resuming operations: no peer stands in the way any more.");

    await kopf("freeze", ["-n", "default", "-t", "60", "-m", "maintenance", "-i", "ops"], cluster);
    await deployed.waitForOutput(
      "Pausing operations in favour of operators with a higher " +
        'priority: ops (priority 100: "maintenance").',
    );
    cluster.create(await manifest("obj.yaml"));
    await kopf("resume", ["-n", "default", "-i", "ops"], cluster);
    await deployed.waitForOutput(`${NAME} is handled by the operator that has the right of way.`);
    await cluster.waitFor(KIND, NAME, settled);
  } finally {
    await dev.stop();
    await deployed.stop();
  }
  assertEquals([dev.exitCode, deployed.exitCode], [0, 0]);
});
