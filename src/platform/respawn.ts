/**
 * This program started again, as a child process with other arguments: what
 * `kopf run --watch` restarts the operator with, so that each start imports the
 * operator's modules afresh (a process's module cache cannot be emptied).
 *
 * The child is the same runtime running the same main module. On Node, with the same
 * runtime flags (`process.execArgv`). On Deno, whose flags a program cannot read, with
 * the permissions this process holds in full, as queried (`--allow-read`, ...; of
 * `--allow-sys`, also the single kinds granted) and `--no-prompt`: a permission granted
 * only in part (`--allow-read=DIR`) cannot be told and is not passed on, nor are other
 * flags (`--config`, `--v8-flags`); the configuration is found again from the current
 * directory. The child runs in a process group of its own, so that a terminal's Ctrl-C
 * reaches only this process, which passes it on once; it shares this process's standard
 * output and error, and has no standard input.
 *
 * @module
 */
import { spawn } from "node:child_process";
import { constants } from "node:os";
import process from "node:process";
import type { TerminationSignal } from "./termination_signals.ts";

/** A child process running this program again. */
export interface Respawned {
  /** Its process id. */
  readonly pid: number;
  /** Its exit code once it has ended; 128 plus the signal's number when one ended it. */
  readonly exited: Promise<number>;
  /** Send it a signal; nothing happens if it has ended already. */
  signal(signal: TerminationSignal | "SIGKILL"): void;
}

/** A command line: the program and its arguments. */
export interface CommandLine {
  /** The executable. */
  readonly command: string;
  /** Its arguments. */
  readonly args: readonly string[];
}

const QUERIED = ["net", "read", "write", "env", "run", "ffi"] as const;

const SYS_KINDS = [
  "hostname",
  "osRelease",
  "osUptime",
  "loadavg",
  "networkInterfaces",
  "systemMemoryInfo",
  "uid",
  "gid",
  "username",
  "cpus",
  "homedir",
  "statfs",
  "getPriority",
  "setPriority",
] as const;

/** Deno's permission flags for what this process holds in full. */
function denoPermissionFlags(): string[] {
  const granted = (descriptor: Deno.PermissionDescriptor) =>
    Deno.permissions.querySync(descriptor).state === "granted";
  const flags = QUERIED.filter((name) => granted({ name })).map((name) => `--allow-${name}`);
  if (granted({ name: "sys" })) {
    flags.push("--allow-sys");
  } else {
    const kinds = SYS_KINDS.filter((kind) => granted({ name: "sys", kind }));
    if (kinds.length > 0) flags.push(`--allow-sys=${kinds.join(",")}`);
  }
  return flags;
}

function signalNumber(name: string): number {
  return (constants.signals as Record<string, number | undefined>)[name] ?? 0;
}

/** The command that starts this program again with `args` instead of its own. */
export function respawnCommand(args: readonly string[]): CommandLine {
  if (typeof Deno !== "undefined") {
    return {
      command: Deno.execPath(),
      args: ["run", "--no-prompt", ...denoPermissionFlags(), Deno.mainModule, ...args],
    };
  }
  return { command: process.execPath, args: [...process.execArgv, process.argv[1], ...args] };
}

/** Start this program again with `args` instead of its own (see the module's notes). */
export function respawn(args: readonly string[]): Respawned {
  const { command, args: all } = respawnCommand(args);
  if (typeof Deno !== "undefined") {
    const child = new Deno.Command(command, {
      args: [...all],
      stdin: "null",
      stdout: "inherit",
      stderr: "inherit",
      detached: true,
    }).spawn();
    let ended = false;
    const exited = child.status.then((status) => {
      ended = true;
      return status.signal ? 128 + signalNumber(status.signal) : status.code;
    });
    return {
      pid: child.pid,
      exited,
      signal: (signal) => {
        if (ended) return;
        try {
          child.kill(signal);
        } catch {
          // It has ended in the meantime.
        }
      },
    };
  }
  const child = spawn(command, [...all], {
    stdio: ["ignore", "inherit", "inherit"],
    detached: true,
  });
  const exited = new Promise<number>((resolve) => {
    child.once("error", () => resolve(127));
    child.once("exit", (code, signal) => resolve(code ?? 128 + signalNumber(signal ?? "")));
  });
  return {
    pid: child.pid ?? -1,
    exited,
    signal: (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
  };
}
