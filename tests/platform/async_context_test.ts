/**
 * Async contexts: values that follow a flow, and `outsideContexts` for the imports at the
 * point of use, which must not leave the importer's contexts to what Deno calls next.
 */
import { assertEquals } from "../assert.ts";
import { AsyncContext, outsideContexts } from "../../src/platform/async_context.ts";

Deno.test("outside of every context, nothing is set; the caller keeps its own after", async () => {
  const context = new AsyncContext<string>();
  await context.run("outer", async () => {
    assertEquals(outsideContexts(() => context.get()), undefined);
    await outsideContexts(() => Promise.resolve());
    assertEquals(context.get(), "outer");
  });
});

Deno.test("an import begun outside of contexts leaves none to the next test", async () => {
  const probe = new URL("fixtures/context_leak_probe.ts", import.meta.url).pathname;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["test", "--allow-read", "--no-check", probe],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(output.stdout) + new TextDecoder().decode(output.stderr);
  assertEquals(output.success, true, text);
});
