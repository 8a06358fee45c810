/**
 * Self-signed certificate authorities, server certificates and client certificates,
 * made with WebCrypto (ECDSA P-256, SHA-256) and a small DER encoder -- no `openssl`
 * binary needed, identical on Deno and Node.
 *
 * Every certificate comes as PEM text: the certificate, and its private key as an
 * unencrypted PKCS#8 `PRIVATE KEY` block, which rustls (Deno), OpenSSL (Node), Go
 * (kubectl) and the Kubernetes API server all accept.
 *
 * ```ts
 * const ca = await generateCertificateAuthority({ commonName: "my-ca" });
 * const server = await issueServerCertificate(ca, { hostnames: ["localhost", "127.0.0.1"] });
 * const client = await issueClientCertificate(ca, {
 *   commonName: "alice",
 *   organizations: ["system:masters"],
 * });
 * ```
 *
 * @module
 */
import { CertificateError } from "../structs/errors.ts";
import {
  base64Decode,
  bitString,
  boolean,
  concatBytes,
  decodeOid,
  type DerElement,
  explicit,
  implicit,
  namedBits,
  octetString,
  oid,
  pemBlocks,
  readChildren,
  readElement,
  sequence,
  set,
  smallInteger,
  time,
  toPem,
  unsignedInteger,
  utf8String,
} from "./der.ts";
import { encodeAltName, formatIp } from "./subject_alt_names.ts";
import { firstCertificate, isCaConstraint, parseTbs, readingX509 } from "./x509_reading.ts";

/** A certificate and its private key, both as PEM text. */
export interface CertificatePem {
  /** The PEM-encoded X.509 certificate (`-----BEGIN CERTIFICATE-----`). */
  readonly certPem: string;
  /** The PEM-encoded unencrypted PKCS#8 private key (`-----BEGIN PRIVATE KEY-----`). */
  readonly keyPem: string;
}

/**
 * A certificate authority: its certificate and private key as PEM. Any CA with an
 * ECDSA P-256 PKCS#8 key can issue certificates, including one loaded from files.
 */
export type CertificateAuthority = CertificatePem;

/** Options for {@link generateCertificateAuthority}. */
export interface CertificateAuthorityOptions {
  /** The CA's common name (CN); `kopf-ca` by default. */
  readonly commonName?: string;
  /** The CA's organizations (O), if any. */
  readonly organizations?: readonly string[];
  /** How many days the CA stays valid; 365 by default. */
  readonly days?: number;
  /** When validity begins; five minutes ago by default, to tolerate clock skew. */
  readonly notBefore?: Date;
}

/** Options for {@link issueServerCertificate}. */
export interface ServerCertificateOptions {
  /**
   * The DNS names and IP addresses the server answers on, e.g.
   * `["localhost", "127.0.0.1", "::1"]`; they become the subject alternative names.
   */
  readonly hostnames: readonly string[];
  /** The subject's common name; the first hostname by default. */
  readonly commonName?: string;
  /** How many days the certificate stays valid; 365 by default. */
  readonly days?: number;
  /** When validity begins; five minutes ago by default, to tolerate clock skew. */
  readonly notBefore?: Date;
}

/** Options for {@link issueClientCertificate}. */
export interface ClientCertificateOptions {
  /** The common name (CN): the user name as Kubernetes sees it. */
  readonly commonName: string;
  /** The organizations (O): the user's groups as Kubernetes sees them. */
  readonly organizations?: readonly string[];
  /** How many days the certificate stays valid; 365 by default. */
  readonly days?: number;
  /** When validity begins; five minutes ago by default, to tolerate clock skew. */
  readonly notBefore?: Date;
}

/** The parts of a distinguished name that Kubernetes and people care about. */
export interface CertificateName {
  /** The common name (CN), if any. */
  readonly commonName?: string;
  /** The organizations (O), in order. */
  readonly organizations: readonly string[];
}

/** What a certificate says, as read back by {@link describeCertificate}. */
export interface CertificateDescription {
  /** The serial number as lowercase hex. */
  readonly serialNumber: string;
  /** The subject's name. */
  readonly subject: CertificateName;
  /** The issuer's name. */
  readonly issuer: CertificateName;
  /** The start of validity. */
  readonly notBefore: Date;
  /** The end of validity. */
  readonly notAfter: Date;
  /** Whether the certificate is a CA (basicConstraints cA). */
  readonly isCa: boolean;
  /** The DNS names among the subject alternative names. */
  readonly dnsNames: readonly string[];
  /** The IP addresses among the subject alternative names, in their usual text form. */
  readonly ipAddresses: readonly string[];
  /** The extended key usages by name (`serverAuth`, `clientAuth`) or by OID. */
  readonly extendedKeyUsages: readonly string[];
}

const OID = {
  commonName: "2.5.4.3",
  organization: "2.5.4.10",
  ecPublicKey: "1.2.840.10045.2.1",
  prime256v1: "1.2.840.10045.3.1.7",
  ecdsaWithSha256: "1.2.840.10045.4.3.2",
  subjectKeyIdentifier: "2.5.29.14",
  keyUsage: "2.5.29.15",
  subjectAltName: "2.5.29.17",
  basicConstraints: "2.5.29.19",
  authorityKeyIdentifier: "2.5.29.35",
  extKeyUsage: "2.5.29.37",
  serverAuth: "1.3.6.1.5.5.7.3.1",
  clientAuth: "1.3.6.1.5.5.7.3.2",
} as const;

const EKU_NAMES: Record<string, string> = {
  [OID.serverAuth]: "serverAuth",
  [OID.clientAuth]: "clientAuth",
};

/** KeyUsage bit numbers (RFC 5280 section 4.2.1.3). */
const KeyUsage = { digitalSignature: 0, keyCertSign: 5, cRLSign: 6 } as const;

const DEFAULT_DAYS = 365;
const CLOCK_SKEW_MS = 5 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;
const ALGORITHM = { name: "ECDSA", namedCurve: "P-256" } as const;

/** Generate a self-signed certificate authority that can issue server and client certificates. */
export async function generateCertificateAuthority(
  options: CertificateAuthorityOptions = {},
): Promise<CertificateAuthority> {
  const name = encodeName(options.commonName ?? "kopf-ca", options.organizations ?? []);
  const key = await generateKey();
  const keyId = await keyIdentifier(key.publicKeyBits);
  const extensions = [
    extension(OID.basicConstraints, true, sequence(boolean(true), smallInteger(0))),
    extension(
      OID.keyUsage,
      true,
      namedBits([KeyUsage.digitalSignature, KeyUsage.keyCertSign, KeyUsage.cRLSign]),
    ),
    extension(OID.subjectKeyIdentifier, false, octetString(keyId)),
  ];
  const certDer = await signCertificate({
    issuer: name,
    subject: name,
    subjectPublicKeyInfo: key.spki,
    validity: validity(options),
    extensions,
    signingKey: key.privateKey,
  });
  return { certPem: toPem("CERTIFICATE", certDer), keyPem: toPem("PRIVATE KEY", key.pkcs8) };
}

/**
 * Issue a TLS server certificate signed by the CA, valid for the given DNS names and
 * IP addresses (IPv4 and IPv6).
 */
export async function issueServerCertificate(
  ca: CertificateAuthority,
  options: ServerCertificateOptions,
): Promise<CertificatePem> {
  const hostnames = options.hostnames ?? [];
  if (hostnames.length === 0) {
    throw new CertificateError(
      'A server certificate needs at least one hostname or IP address, e.g. ["localhost", "127.0.0.1"].',
    );
  }
  const altNames = hostnames.map(encodeAltName);
  const commonName = options.commonName ?? (hostnames[0].length <= 64 ? hostnames[0] : "server");
  return await issue(ca, encodeName(commonName, []), options, [
    extension(OID.extKeyUsage, false, sequence(oid(OID.serverAuth))),
    extension(OID.subjectAltName, false, sequence(...altNames)),
  ]);
}

/**
 * Issue a TLS client certificate signed by the CA. Kubernetes takes the common name as
 * the user name and the organizations as the user's groups.
 */
export async function issueClientCertificate(
  ca: CertificateAuthority,
  options: ClientCertificateOptions,
): Promise<CertificatePem> {
  if (!options.commonName) {
    throw new CertificateError(
      'A client certificate needs a commonName: the user name, e.g. { commonName: "alice" }.',
    );
  }
  return await issue(ca, encodeName(options.commonName, options.organizations ?? []), options, [
    extension(OID.extKeyUsage, false, sequence(oid(OID.clientAuth))),
  ]);
}

/** Read back what a PEM certificate says: names, validity, SANs, CA flag, key usages. */
export function describeCertificate(certPem: string): CertificateDescription {
  const tbs = parseTbs(firstCertificate(certPem, "the certificate"));
  return readingX509(() => {
    const extensions = tbs.extensions;
    const sans = extensions.get(OID.subjectAltName);
    const dnsNames: string[] = [];
    const ipAddresses: string[] = [];
    if (sans) {
      for (const san of readChildren(readElement(sans).content)) {
        if (san.tag === 0x82) dnsNames.push(new TextDecoder().decode(san.content));
        if (san.tag === 0x87) ipAddresses.push(formatIp(san.content));
      }
    }
    const eku = extensions.get(OID.extKeyUsage);
    const extendedKeyUsages = eku
      ? readChildren(readElement(eku).content).map((e) => {
        const dotted = decodeOid(e.content);
        return EKU_NAMES[dotted] ?? dotted;
      })
      : [];
    return {
      serialNumber: hex(tbs.serial),
      subject: decodeName(tbs.subject),
      issuer: decodeName(tbs.issuer),
      notBefore: tbs.notBefore,
      notAfter: tbs.notAfter,
      isCa: isCaConstraint(extensions.get(OID.basicConstraints)),
      dnsNames,
      ipAddresses,
      extendedKeyUsages,
    };
  });
}

// --- issuing ---

interface KeyMaterial {
  readonly privateKey: CryptoKey;
  readonly spki: Uint8Array;
  readonly pkcs8: Uint8Array;
  readonly publicKeyBits: Uint8Array;
}

async function issue(
  ca: CertificateAuthority,
  subject: Uint8Array,
  options: { readonly days?: number; readonly notBefore?: Date },
  purpose: Uint8Array[],
): Promise<CertificatePem> {
  const issuer = await loadIssuer(ca);
  const key = await generateKey();
  const extensions = [
    extension(OID.basicConstraints, true, sequence()),
    extension(OID.keyUsage, true, namedBits([KeyUsage.digitalSignature])),
    ...purpose,
    extension(OID.subjectKeyIdentifier, false, octetString(await keyIdentifier(key.publicKeyBits))),
    extension(OID.authorityKeyIdentifier, false, sequence(implicit(0, issuer.keyId))),
  ];
  const certDer = await signCertificate({
    issuer: issuer.subject,
    subject,
    subjectPublicKeyInfo: key.spki,
    validity: validity(options),
    extensions,
    signingKey: issuer.privateKey,
  });
  return { certPem: toPem("CERTIFICATE", certDer), keyPem: toPem("PRIVATE KEY", key.pkcs8) };
}

async function generateKey(): Promise<KeyMaterial> {
  const pair = await crypto.subtle.generateKey(ALGORITHM, true, ["sign", "verify"]);
  const jwk = await crypto.subtle.exportKey("jwk", pair.privateKey);
  if (!jwk.d || !jwk.x || !jwk.y) throw new Error("WebCrypto returned an incomplete EC key");
  const publicKeyBits = concatBytes([Uint8Array.of(4), base64Decode(jwk.x), base64Decode(jwk.y)]);
  const algorithm = sequence(oid(OID.ecPublicKey), oid(OID.prime256v1));
  // PKCS#8 is built by hand so that the public key is always embedded: ring (rustls)
  // refuses EC keys without it, and runtimes differ in what they export.
  const ecPrivateKey = sequence(
    smallInteger(1),
    octetString(base64Decode(jwk.d)),
    explicit(1, bitString(publicKeyBits)),
  );
  return {
    privateKey: pair.privateKey,
    spki: sequence(algorithm, bitString(publicKeyBits)),
    pkcs8: sequence(smallInteger(0), algorithm, octetString(ecPrivateKey)),
    publicKeyBits,
  };
}

/** RFC 5280 key identifier: the SHA-1 of the public key bits. */
async function keyIdentifier(publicKeyBits: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-1", publicKeyBits as BufferSource));
}

function validity(options: { readonly days?: number; readonly notBefore?: Date }): Uint8Array {
  const days = options.days ?? DEFAULT_DAYS;
  if (typeof days !== "number" || !Number.isFinite(days) || days <= 0) {
    throw new CertificateError(
      `Certificate validity must be a positive number of days, got ${String(days)}.`,
    );
  }
  const now = Date.now();
  const notBefore = options.notBefore ?? new Date(now - CLOCK_SKEW_MS);
  if (Number.isNaN(notBefore.getTime())) {
    throw new CertificateError(
      "Certificate notBefore is an invalid Date; pass a valid Date or omit it.",
    );
  }
  const notAfter = new Date(Math.max(now, notBefore.getTime()) + days * DAY_MS);
  return sequence(time(notBefore), time(notAfter));
}

function extension(id: string, critical: boolean, value: Uint8Array): Uint8Array {
  return critical
    ? sequence(oid(id), boolean(true), octetString(value))
    : sequence(oid(id), octetString(value));
}

function encodeName(commonName: string, organizations: readonly string[]): Uint8Array {
  const rdns = organizations.map((o) => set(sequence(oid(OID.organization), utf8String(o))));
  rdns.push(set(sequence(oid(OID.commonName), utf8String(commonName))));
  return sequence(...rdns);
}

async function signCertificate(parts: {
  issuer: Uint8Array;
  subject: Uint8Array;
  subjectPublicKeyInfo: Uint8Array;
  validity: Uint8Array;
  extensions: Uint8Array[];
  signingKey: CryptoKey;
}): Promise<Uint8Array> {
  const algorithm = sequence(oid(OID.ecdsaWithSha256));
  const serial = crypto.getRandomValues(new Uint8Array(16));
  serial[0] = (serial[0] & 0x7f) | 0x40; // positive, and always 16 bytes long
  const tbs = sequence(
    explicit(0, smallInteger(2)), // X.509 v3
    unsignedInteger(serial),
    algorithm,
    parts.issuer,
    parts.validity,
    parts.subject,
    parts.subjectPublicKeyInfo,
    explicit(3, sequence(...parts.extensions)),
  );
  const raw = new Uint8Array(
    await crypto.subtle.sign(
      { name: "ECDSA", hash: "SHA-256" },
      parts.signingKey,
      tbs as BufferSource,
    ),
  );
  // WebCrypto gives r||s; X.509 wants SEQUENCE { r INTEGER, s INTEGER }.
  const half = raw.length / 2;
  const signature = sequence(
    unsignedInteger(raw.subarray(0, half)),
    unsignedInteger(raw.subarray(half)),
  );
  return sequence(tbs, algorithm, bitString(signature));
}

function decodeName(name: DerElement): CertificateName {
  let commonName: string | undefined;
  const organizations: string[] = [];
  for (const rdn of readChildren(name.content)) {
    for (const attribute of readChildren(rdn.content)) {
      const [type, value] = readChildren(attribute.content);
      const text = new TextDecoder().decode(value.content);
      const dotted = decodeOid(type.content);
      if (dotted === OID.commonName) commonName = text;
      if (dotted === OID.organization) organizations.push(text);
    }
  }
  return { commonName, organizations };
}

interface Issuer {
  readonly subject: Uint8Array;
  readonly keyId: Uint8Array;
  readonly privateKey: CryptoKey;
}

async function loadIssuer(ca: CertificateAuthority): Promise<Issuer> {
  if (!ca || typeof ca !== "object") {
    throw new CertificateError(
      "The CA must be { certPem, keyPem }, as generateCertificateAuthority returns.",
    );
  }
  const tbs = parseTbs(firstCertificate(ca.certPem, "The CA's certPem"));
  if (!readingX509(() => isCaConstraint(tbs.extensions.get(OID.basicConstraints)))) {
    throw new CertificateError(
      "The CA's certPem is not a CA certificate (basicConstraints cA is not set); pass a CA certificate.",
    );
  }
  const keyProblem =
    'The CA\'s keyPem must be a PKCS#8 "-----BEGIN PRIVATE KEY-----" block with an ECDSA P-256 key, as generateCertificateAuthority makes.';
  let privateKey: CryptoKey;
  try {
    const [keyDer] = pemBlocks(typeof ca.keyPem === "string" ? ca.keyPem : "", "PRIVATE KEY");
    if (!keyDer) throw new CertificateError(keyProblem);
    privateKey = await crypto.subtle.importKey(
      "pkcs8",
      keyDer as BufferSource,
      ALGORITHM,
      false,
      ["sign"],
    );
  } catch (error) {
    if (error instanceof CertificateError) throw error;
    throw new CertificateError(keyProblem, { cause: error });
  }
  const existingKeyId = tbs.extensions.get(OID.subjectKeyIdentifier);
  const keyId = existingKeyId
    ? readingX509(() => readElement(existingKeyId).content)
    : await keyIdentifier(
      readingX509(() => readChildren(tbs.spki.content)[1].content.subarray(1)),
    );
  return { subject: tbs.subject.raw, keyId, privateKey };
}

function hex(bytes: Uint8Array): string {
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}
