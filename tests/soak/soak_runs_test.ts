/**
 * The soak's record of handler runs: typed columns that give back the runs as reported,
 * in order, past their growth.
 */
import { objectName, RunLog } from "../../scripts/soak/runs.ts";
import { assertEquals } from "../assert.ts";

Deno.test("runs come back as reported, in order, past the columns' growth", () => {
  const log = new RunLog();
  const count = 5000; // past the first 1,024 and two doublings
  for (let i = 0; i < count; i++) {
    const what = ["create", "update", "delete"][i % 3];
    log.add(
      what,
      objectName(i),
      what === "delete" ? "-" : String(i % 10),
      String(1000 + i),
      "0",
      1 + (i >> 10),
    );
  }
  log.add("bogus", "soak-00001", "1", "1", "0", 1); // not a run of the soak's handlers
  assertEquals(log.length, count);
  const runs = [...log];
  assertEquals(runs[0], {
    what: "create",
    name: "soak-00000",
    value: "0",
    version: "1000",
    retry: "0",
    incarnation: 1,
  });
  assertEquals(runs[4999], {
    what: "update",
    name: "soak-04999",
    value: "9",
    version: "5999",
    retry: "0",
    incarnation: 5,
  });
  assertEquals(runs[2].value, "-");
});
