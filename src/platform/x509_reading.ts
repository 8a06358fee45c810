/**
 * Reading X.509 certificates back from PEM: the first certificate of a PEM text, its
 * to-be-signed part (serial, names, validity, public key, extensions by OID), and its CA
 * flag; malformed input is one `CertificateError`.
 *
 * @module
 */
import { CertificateError } from "../structs/errors.ts";
import {
  decodeOid,
  decodeTime,
  type DerElement,
  pemBlocks,
  readChildren,
  readElement,
  Tag,
} from "./der.ts";

/** The to-be-signed part of a certificate, read. */
export interface Tbs {
  readonly serial: Uint8Array;
  readonly issuer: DerElement;
  readonly subject: DerElement;
  readonly notBefore: Date;
  readonly notAfter: Date;
  readonly spki: DerElement;
  /** Extension values (the DER inside the OCTET STRING), by OID. */
  readonly extensions: Map<string, Uint8Array>;
}

export function firstCertificate(pem: string, what: string): Uint8Array {
  let der: Uint8Array | undefined;
  try {
    [der] = pemBlocks(typeof pem === "string" ? pem : "", "CERTIFICATE");
  } catch (error) {
    throw new CertificateError(
      `${what} holds a CERTIFICATE block that is not base64; pass the PEM text of the certificate.`,
      { cause: error },
    );
  }
  if (!der) {
    throw new CertificateError(
      `${what} holds no "-----BEGIN CERTIFICATE-----" block; pass the PEM text of the certificate.`,
    );
  }
  return der;
}

/**
 * Read certificate DER: the reader's own failures on malformed input (truncation, odd
 * encodings, missing fields) become one CertificateError, as that is what they mean here.
 */
export function readingX509<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof CertificateError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new CertificateError(`The certificate is not a valid X.509 certificate (${reason}).`, {
      cause: error,
    });
  }
}

export function parseTbs(certDer: Uint8Array): Tbs {
  return readingX509(() => {
    const [tbs] = readChildren(readElement(certDer).content);
    const fields = readChildren(tbs.content);
    const rest = fields[0].tag === 0xa0 ? fields.slice(1) : fields;
    const [serial, , issuer, validityElement, subject, spki, ...optional] = rest;
    const [notBefore, notAfter] = readChildren(validityElement.content).map(decodeTime);
    const extensions = new Map<string, Uint8Array>();
    for (const element of optional) {
      if (element.tag !== 0xa3) continue;
      for (const ext of readChildren(readElement(element.content).content)) {
        const parts = readChildren(ext.content);
        const value = parts[parts.length - 1];
        extensions.set(decodeOid(parts[0].content), value.content);
      }
    }
    return {
      serial: serial.content,
      issuer,
      subject,
      notBefore,
      notAfter,
      spki,
      extensions,
    };
  });
}

export function isCaConstraint(value: Uint8Array | undefined): boolean {
  if (!value) return false;
  const [first] = readChildren(readElement(value).content);
  return first?.tag === Tag.BOOLEAN && first.content[0] !== 0;
}
