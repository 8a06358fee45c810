/**
 * The cluster's own credentials: the CA and serving certificate of HTTPS, the admin's
 * bearer token and client certificate. Made at the first start; with a state file, taken
 * from it at the next, as long as they are valid for a day more, so that a restarted
 * cluster is the same server to the clients that knew it.
 *
 * @module
 */
import { ConfigurationError } from "../../structs/errors.ts";
import {
  type CertificatePem,
  describeCertificate,
  generateCertificateAuthority,
  issueClientCertificate,
  issueServerCertificate,
} from "../../platform/certificates.ts";
import type { SavedCredentials } from "./persistence.ts";

/** The names the serving certificate is valid for. */
export const SERVING_HOSTNAMES: readonly string[] = ["127.0.0.1", "localhost"];
/** A saved certificate that expires sooner than this is made anew. */
const MIN_REMAINING_MS = 24 * 60 * 60 * 1000;

/** What decides the credentials: the options of the start. */
export interface CredentialOptions {
  tls?: boolean;
  token?: string | false;
  clientCertificates?: boolean;
  rbac?: boolean;
}

/** The credentials a cluster serves with. */
export interface ClusterCredentials {
  /** The CA, with HTTPS. */
  readonly ca?: CertificatePem;
  /** The serving certificate, with HTTPS. */
  readonly serving?: CertificatePem;
  /** The admin's client certificate, with `clientCertificates`. */
  readonly client?: CertificatePem;
  /** The admin's bearer token, if one is required. */
  readonly token?: string;
}

/** A new random bearer token. */
export function randomToken(): string {
  return crypto.randomUUID().replaceAll("-", "");
}

/** Whether a saved certificate can be served for a day more. */
function lasting(pem: CertificatePem | undefined): pem is CertificatePem {
  if (!pem) return false;
  try {
    return describeCertificate(pem.certPem).notAfter.getTime() - Date.now() > MIN_REMAINING_MS;
  } catch {
    return false;
  }
}

/** Refuse the combinations that cannot work, saying what to change. */
function checkOptions(options: CredentialOptions): void {
  if (options.rbac && options.token === false && !options.clientCertificates) {
    throw new ConfigurationError(
      "FakeCluster: rbac needs the admin to be told from others: keep a token (drop token: false) or use clientCertificates.",
    );
  }
  if (options.clientCertificates && !options.tls) {
    throw new ConfigurationError(
      "FakeCluster: clientCertificates needs tls: true (certificates travel over TLS).",
    );
  }
}

/** The admin's token: the one given, the saved one, a new one, or none where none is needed. */
function tokenOf(
  options: CredentialOptions,
  saved: SavedCredentials | undefined,
): string | undefined {
  if (options.token === false || options.token === "") return undefined;
  if (options.token !== undefined) return options.token;
  const needed = (options.tls && !options.clientCertificates) || options.rbac;
  return needed ? saved?.token ?? randomToken() : undefined;
}

/** The credentials for these options, the saved ones where they still serve. */
export async function makeCredentials(
  options: CredentialOptions,
  saved: SavedCredentials | undefined,
): Promise<ClusterCredentials> {
  checkOptions(options);
  const token = tokenOf(options, saved);
  if (!options.tls) return { token };
  // Certificates of a CA that is made anew are made anew too.
  const kept = lasting(saved?.ca);
  const ca = kept ? saved!.ca! : await generateCertificateAuthority({
    commonName: "kopf-fake-cluster-ca",
  });
  const serving = kept && lasting(saved?.serving)
    ? saved!.serving!
    : await issueServerCertificate(ca, { hostnames: SERVING_HOSTNAMES });
  let client: CertificatePem | undefined;
  if (options.clientCertificates) {
    client = kept && lasting(saved?.clientCertificate)
      ? saved!.clientCertificate!
      : await issueClientCertificate(ca, {
        commonName: "kopf-fake-admin",
        organizations: ["system:masters"],
      });
  }
  return { ca, serving, client, token };
}
