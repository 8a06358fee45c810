/**
 * The substitute login: within its flow, the default logins return its credentials
 * instead of the environment's; files given explicitly are still read; outside the flow
 * nothing changes.
 */
import { assertEquals } from "../assert.ts";
import { loginWithDefaults } from "../../src/client/login.ts";
import { loginWithKubeconfig } from "../../src/client/kubeconfig.ts";
import { substituteLogin, withSubstituteLogin } from "../../src/client/login_substitute.ts";
import type { ConnectionInfo } from "../../src/structs/credentials.ts";
import { withEnv } from "../env.ts";

const SUBSTITUTE: ConnectionInfo = { server: "http://127.0.0.1:1", source: "the test's cluster" };

const KUBECONFIG = `apiVersion: v1
kind: Config
clusters: [{ name: c, cluster: { server: "https://from-the-file.example:6443" } }]
users: [{ name: u, user: { token: abc } }]
contexts: [{ name: x, context: { cluster: c, user: u } }]
current-context: x
`;

Deno.test("within the flow, the default logins return the substitute's credentials", async () => {
  const dir = await Deno.makeTempDir();
  const file = `${dir}/config`;
  await Deno.writeTextFile(file, KUBECONFIG);
  await withEnv("KUBECONFIG", file, async () => {
    await withSubstituteLogin(() => Promise.resolve(SUBSTITUTE), async () => {
      // Awaited calls and timers started within the flow see it too.
      await new Promise((resolve) => setTimeout(resolve, 1));
      assertEquals(await loginWithDefaults(), SUBSTITUTE);
      assertEquals(await loginWithKubeconfig(), SUBSTITUTE);
      assertEquals(await loginWithKubeconfig({ context: "x" }), SUBSTITUTE);
      // A file named explicitly is what the caller wants: it is read.
      const explicit = await loginWithKubeconfig({ kubeconfig: file });
      assertEquals(explicit?.server, "https://from-the-file.example:6443");
    });
    assertEquals(substituteLogin(), undefined);
    assertEquals((await loginWithDefaults())?.server, "https://from-the-file.example:6443");
  });
});
