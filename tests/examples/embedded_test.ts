/** examples/12-embedded: a program with an operator inside, started and stopped by it. */
import { assertEquals } from "../assert.ts";
import { known, main } from "../../examples/12-embedded/example.ts";
import { configure } from "../../src/platform/logging.ts";
import { clusterWithCrd, KIND } from "./helpers.ts";

Deno.test("12-embedded: the program's steps, each seen by the operator it embeds", async () => {
  await using cluster = await clusterWithCrd();
  const printed: string[] = [];
  const logged: string[] = [];
  configure({ logFormat: "plain", writer: (line) => logged.push(line) });
  await main({
    steps: 2,
    login: () => Promise.resolve(cluster.connectionInfo),
    print: (line) => printed.push(line),
  });
  assertEquals(printed, [
    "Starting the main app.",
    "Do the main app activity here. Step 1/2.",
    "Do the main app activity here. Step 2/2.",
    "Exiting the main app.",
  ]);
  assertEquals(known.size, 0, "each object was seen created, then deleted");
  // Every object went through the operator's create and delete handlers, and is gone.
  for (const step of [0, 1]) {
    await cluster.waitFor(KIND, `kopf-example-${step}`, (o) => o === undefined);
  }
  for (const step of [0, 1]) {
    for (const what of ["has seen the object.", "has seen the object go."]) {
      const line = `[default/kopf-example-${step}] The operator ${what}`;
      assertEquals(logged.filter((l) => l === line).length, 1, line);
    }
  }
  const creations = cluster.requests.filter((r) =>
    r.method === "POST" && r.path.endsWith("/kopfexamples")
  );
  assertEquals(creations.length, 2);
});
