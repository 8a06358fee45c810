/**
 * The command-line conventions: usage errors exit with 2 after a hint at the help,
 * failures with 1, help and version with 0 — for commander's own errors and ours alike.
 */
import { Command, CommanderError, InvalidArgumentError } from "@commander-js/extra-typings";
import { exitCodeOf, followUsageConventions, usageHint } from "../../src/commands/usage.ts";
import { assertEquals } from "../assert.ts";

/** A `kopf`-like program with one subcommand, its output kept. */
function program() {
  const out: string[] = [];
  const err: string[] = [];
  const output = { writeOut: (s: string) => out.push(s), writeErr: (s: string) => err.push(s) };
  const root = new Command("kopf").version("1.2.3").configureOutput(output);
  const sub = new Command("sub")
    .argument("<file>")
    .option("--count <n>", "a number", (value: string) => {
      if (!/^\d+$/.test(value)) throw new InvalidArgumentError("not a number.");
      return Number(value);
    })
    .option("--fail <how>")
    .configureOutput(output)
    .action((_file, flags, self) => {
      if (flags.fail === "usage") self.error("kopf sub: wrong flags.", { exitCode: 2 });
      if (flags.fail === "failure") self.error("kopf sub: it broke.", { exitCode: 1 });
    });
  root.addCommand(sub);
  followUsageConventions(root as unknown as Command);
  const run = async (...args: string[]): Promise<{ code: number; out: string; err: string }> => {
    out.length = err.length = 0;
    let code = 0;
    try {
      await root.parseAsync(args, { from: "user" });
    } catch (error) {
      if (!(error instanceof CommanderError)) throw error;
      code = error.exitCode;
    }
    return { code, out: out.join(""), err: err.join("") };
  };
  return { run, sub };
}

Deno.test("commander's usage errors exit with 2 and end with the hint of their command", async () => {
  const { run } = program();
  for (
    const [args, message, hint] of [
      [["sub", "f", "--bogus"], "error: unknown option '--bogus'", "See 'kopf sub --help'."],
      [["sub"], "error: missing required argument 'file'", "See 'kopf sub --help'."],
      [["sub", "f", "--count", "x"], "not a number.", "See 'kopf sub --help'."],
      [["sub", "f", "--count"], "argument missing", "See 'kopf sub --help'."],
      [["bogus"], "error: unknown command 'bogus'", "See 'kopf --help'."],
    ] as [string[], string, string][]
  ) {
    const result = await run(...args);
    assertEquals(result.code, 2, args.join(" "));
    const lines = result.err.trimEnd().split("\n");
    assertEquals(lines.length, 2, result.err);
    assertEquals(lines[0].includes(message), true, lines[0]);
    assertEquals(lines[1], hint);
  }
});

Deno.test("a command's own usage error exits with 2 and the hint; a failure with 1 and no hint", async () => {
  const { run } = program();
  assertEquals(await run("sub", "f", "--fail", "usage"), {
    code: 2,
    out: "",
    err: "kopf sub: wrong flags.\nSee 'kopf sub --help'.\n",
  });
  assertEquals(await run("sub", "f", "--fail", "failure"), {
    code: 1,
    out: "",
    err: "kopf sub: it broke.\n",
  });
  assertEquals((await run("sub", "f")).code, 0);
});

Deno.test("help and version exit with 0; no subcommand at all prints the help and exits with 2", async () => {
  const { run } = program();
  const version = await run("--version");
  assertEquals([version.code, version.out], [0, "1.2.3\n"]);
  const help = await run("sub", "--help");
  assertEquals(help.code, 0);
  assertEquals(help.out.startsWith("Usage: kopf sub [options] <file>"), true, help.out);
  const none = await run();
  assertEquals(none.code, 2);
  assertEquals(none.err.startsWith("Usage: kopf [options] [command]"), true, none.err);
  assertEquals(none.err.includes("See '"), false, "the help itself was printed");
});

Deno.test("the exit code and the hint are derived from commander's errors and commands", () => {
  assertEquals(exitCodeOf(new CommanderError(1, "commander.unknownOption", "x")), 2);
  assertEquals(exitCodeOf(new CommanderError(1, "commander.invalidArgument", "x")), 2);
  assertEquals(exitCodeOf(new CommanderError(1, "commander.error", "x")), 1);
  assertEquals(exitCodeOf(new CommanderError(2, "commander.error", "x")), 2);
  assertEquals(exitCodeOf(new CommanderError(0, "commander.version", "x")), 0);
  assertEquals(exitCodeOf(new CommanderError(0, "commander.helpDisplayed", "x")), 0);
  const { sub } = program();
  assertEquals(usageHint(sub), "See 'kopf sub --help'.");
  assertEquals(usageHint(new Command("alone")), "See 'alone --help'.");
});
