/**
 * The subject alternative names of a certificate: a host name checked and encoded as a
 * DNS name or an IP address (IPv4 or IPv6, in brackets or not), and an address read back
 * in its usual text form (RFC 5952).
 *
 * @module
 */
import { CertificateError } from "../structs/errors.ts";
import { implicit } from "./der.ts";

export function encodeAltName(hostname: string): Uint8Array {
  const ip = parseIp(hostname);
  if (ip) return implicit(7, ip);
  const dnsName =
    /^(\*\.)?([A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?\.)*[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?$/;
  if (typeof hostname !== "string" || hostname.length > 253 || !dnsName.test(hostname)) {
    throw new CertificateError(
      `${
        JSON.stringify(hostname)
      } is neither a DNS name nor an IP address; use names like "localhost" or "svc.ns.svc" and addresses like "127.0.0.1" or "::1".`,
    );
  }
  return implicit(2, new TextEncoder().encode(hostname));
}

function parseIpv4(text: string): number[] | undefined {
  const parts = text.split(".");
  if (parts.length !== 4 || !parts.every((p) => /^(0|[1-9]\d{0,2})$/.test(p) && +p <= 255)) {
    return undefined;
  }
  return parts.map(Number);
}

/** The bytes of an IPv4 or IPv6 address, or `undefined` for anything else. */
function parseIp(text: string): Uint8Array | undefined {
  if (typeof text !== "string") return undefined;
  const v4 = parseIpv4(text);
  if (v4) return Uint8Array.from(v4);
  const bare = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  if (!bare.includes(":") || bare.split("::").length > 2) return undefined;
  const expand = (part: string): number[] | undefined => {
    if (part === "") return [];
    const groups: number[] = [];
    const pieces = part.split(":");
    for (const [i, piece] of pieces.entries()) {
      const tail = i === pieces.length - 1 ? parseIpv4(piece) : undefined;
      if (tail) groups.push((tail[0] << 8) | tail[1], (tail[2] << 8) | tail[3]);
      else if (/^[0-9A-Fa-f]{1,4}$/.test(piece)) groups.push(parseInt(piece, 16));
      else return undefined;
    }
    return groups;
  };
  const [head, tail] = bare.split("::");
  const left = expand(head);
  const right = tail === undefined ? [] : expand(tail);
  if (!left || !right) return undefined;
  const missing = 8 - left.length - right.length;
  if (tail === undefined ? missing !== 0 : missing < 1) return undefined;
  const groups = [...left, ...new Array<number>(missing).fill(0), ...right];
  return Uint8Array.from(groups.flatMap((g) => [g >> 8, g & 0xff]));
}

export function formatIp(bytes: Uint8Array): string {
  if (bytes.length === 4) return [...bytes].join(".");
  const groups: number[] = [];
  for (let i = 0; i + 1 < bytes.length; i += 2) groups.push((bytes[i] << 8) | bytes[i + 1]);
  // Compress the longest run of zero groups (RFC 5952).
  let best = -1, bestLength = 1;
  for (let i = 0; i < groups.length;) {
    let j = i;
    while (j < groups.length && groups[j] === 0) j++;
    if (j - i > bestLength) [best, bestLength] = [i, j - i];
    i = j === i ? i + 1 : j;
  }
  const text = groups.map((g) => g.toString(16));
  if (best < 0) return text.join(":");
  return `${text.slice(0, best).join(":")}::${text.slice(best + bestLength).join(":")}`;
}
