/**
 * What the observation's client says a discovery covers: the groups the handlers name, each
 * in its version or its preferred one; everything when discovery asks every group.
 */
import { assertEquals } from "../../assert.ts";
import type { ApiClient } from "../../../src/client/api.ts";
import type { DiscoveredGroup } from "../../../src/client/discovery.ts";
import { Resource } from "../../../src/structs/resources.ts";
import { observationClient } from "../../../src/reactor/observation/observation_client.ts";

function resource(group: string, version: string, preferred: boolean): Resource {
  return new Resource({ group, version, plural: "things", preferred });
}

Deno.test("discovery covers the groups asked, in their version or the preferred one", () => {
  let groups: DiscoveredGroup[] | undefined = [
    { group: "kopf.dev" },
    { group: "other.dev", version: "v1beta1" },
  ];
  const client = observationClient({} as ApiClient, undefined, () => groups);
  const covers = (r: Resource) => client.covers!(r);
  assertEquals(covers(resource("kopf.dev", "v1", true)), true);
  assertEquals(covers(resource("kopf.dev", "v1beta1", false)), false, "not the preferred one");
  assertEquals(covers(resource("other.dev", "v1beta1", false)), true, "the version named");
  assertEquals(covers(resource("other.dev", "v1", true)), false);
  assertEquals(covers(resource("third.dev", "v1", true)), false, "a group not asked");
  groups = undefined; // a selector needs every group: discovery asks them all
  assertEquals(covers(resource("third.dev", "v1", false)), true);
});
