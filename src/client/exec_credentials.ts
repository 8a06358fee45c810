/**
 * Credential plugins of kubeconfigs (`users[].user.exec`): a command that prints an
 * `ExecCredential` with a token or a client certificate, and maybe its expiry. Supports
 * `client.authentication.k8s.io/v1` and `v1beta1`.
 *
 * @module
 */
import { LoginError } from "../structs/errors.ts";
import { CommandStartError, runCommand } from "../platform/subprocess.ts";
import { resolvePath } from "../platform/files.ts";
import { findMissingPermission } from "../platform/permission_flags.ts";

/** The API versions of `ExecCredential` that plugins may speak. */
export const EXEC_API_VERSIONS: readonly string[] = Object.freeze([
  "client.authentication.k8s.io/v1",
  "client.authentication.k8s.io/v1beta1",
]);

/** The `exec` section of a kubeconfig user, as written in the file. */
export interface ExecConfig {
  apiVersion?: string;
  command?: string;
  args?: string[];
  env?: { name?: string; value?: string }[] | null;
  installHint?: string;
  provideClusterInfo?: boolean;
  interactiveMode?: string;
}

/** The cluster facts a plugin may ask for (`provideClusterInfo`). */
export interface ExecClusterInfo {
  server: string;
  "certificate-authority-data"?: string;
  "insecure-skip-tls-verify"?: boolean;
  "tls-server-name"?: string;
  "proxy-url"?: string;
  config?: unknown;
}

/** What a plugin produced. Secret: never log it. */
export interface ExecCredentials {
  token?: string;
  certificateData?: string;
  privateKeyData?: string;
  expiration?: Date;
}

/** Where the plugin is configured, for error messages and relative commands. */
export interface ExecContext {
  /** The kubeconfig file that defines the user. */
  file: string;
  /** The directory of that file. */
  directory: string;
  /** The user's name in the kubeconfig. */
  user: string;
  /** The cluster, for plugins that ask for it. */
  cluster: ExecClusterInfo;
  /** Stop the plugin after this many seconds. */
  timeout?: number;
}

function firstLine(text: string): string {
  const line = text.split("\n").map((l) => l.trim()).find((l) => l) ?? "";
  return line.length > 200 ? `${line.slice(0, 200)}\u2026` : line;
}

/** Run the plugin and return its credentials; every failure is a one-line {@link LoginError}. */
export async function runExecPlugin(
  exec: ExecConfig,
  context: ExecContext,
): Promise<ExecCredentials> {
  const where = `user "${context.user}" in ${context.file}`;
  const apiVersion = exec.apiVersion ?? "";
  if (!EXEC_API_VERSIONS.includes(apiVersion)) {
    throw new LoginError(
      `The exec plugin of ${where} has apiVersion "${apiVersion}"; ` +
        `use ${EXEC_API_VERSIONS.join(" or ")}.`,
    );
  }
  if (!exec.command) throw new LoginError(`The exec plugin of ${where} has no command.`);
  if (exec.interactiveMode === "Always") {
    throw new LoginError(
      `The exec plugin of ${where} needs an interactive terminal (interactiveMode: Always), ` +
        `which an operator does not have; use a non-interactive plugin or a token.`,
    );
  }
  // Like kubectl: a command with a path separator is relative to the kubeconfig's directory.
  const command = /[\\/]/.test(exec.command)
    ? resolvePath(context.directory, exec.command)
    : exec.command;
  const spec: Record<string, unknown> = { interactive: false };
  if (exec.provideClusterInfo) spec.cluster = context.cluster;
  const env: Record<string, string> = {
    KUBERNETES_EXEC_INFO: JSON.stringify({ apiVersion, kind: "ExecCredential", spec }),
  };
  for (const item of exec.env ?? []) {
    if (item?.name) env[item.name] = String(item.value ?? "");
  }
  let output;
  try {
    output = await runCommand({ command, args: exec.args ?? [], env, timeout: context.timeout });
  } catch (e) {
    if (findMissingPermission(e)) throw e; // a missing --allow-run is said as such, at the top
    const hint = exec.installHint ? ` ${firstLine(exec.installHint)}` : "";
    const why = e instanceof CommandStartError ? e.message : String(e);
    throw new LoginError(`The exec plugin of ${where} cannot run: ${why}.${hint}`);
  }
  if (output.timedOut) {
    throw new LoginError(`The exec plugin ${exec.command} of ${where} did not finish in time.`);
  }
  if (output.code !== 0) {
    // Only its stderr: what a plugin prints on stdout may hold credentials, even on failure.
    const detail = firstLine(output.stderr);
    throw new LoginError(
      `The exec plugin ${exec.command} of ${where} failed with exit code ${output.code}` +
        (detail ? `: ${detail}` : "."),
    );
  }
  return parseExecCredential(
    output.stdout,
    apiVersion,
    `the exec plugin ${exec.command} of ${where}`,
  );
}

/** Validate a plugin's output and take the credentials out of it. */
export function parseExecCredential(
  stdout: string,
  apiVersion: string,
  what: string,
): ExecCredentials {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout);
  } catch {
    throw new LoginError(`The output of ${what} is not JSON; it must print an ExecCredential.`);
  }
  const credential = parsed as {
    kind?: string;
    apiVersion?: string;
    status?: {
      token?: string;
      clientCertificateData?: string;
      clientKeyData?: string;
      expirationTimestamp?: string;
    };
  };
  if (credential?.kind !== "ExecCredential") {
    throw new LoginError(`The output of ${what} is not an ExecCredential.`);
  }
  if (credential.apiVersion !== apiVersion) {
    throw new LoginError(
      `The output of ${what} has apiVersion "${credential.apiVersion}", but "${apiVersion}" was asked for.`,
    );
  }
  const status = credential.status ?? {};
  const result: ExecCredentials = {};
  if (status.token) result.token = status.token;
  if (status.clientCertificateData || status.clientKeyData) {
    if (!status.clientCertificateData || !status.clientKeyData) {
      throw new LoginError(`The output of ${what} has a client certificate or key, but not both.`);
    }
    result.certificateData = status.clientCertificateData;
    result.privateKeyData = status.clientKeyData;
  }
  if (!result.token && !result.certificateData) {
    throw new LoginError(`The output of ${what} has neither a token nor a client certificate.`);
  }
  if (status.expirationTimestamp) {
    const expiration = new Date(status.expirationTimestamp);
    if (Number.isNaN(expiration.getTime())) {
      throw new LoginError(
        `The output of ${what} has an invalid expirationTimestamp "${status.expirationTimestamp}".`,
      );
    }
    result.expiration = expiration;
  }
  return result;
}
