/**
 * Certificates: how fast the WebCrypto-based generator makes a CA and issues server
 * certificates, and how fast TLS connections with them are set up on loopback.
 */
import type { BenchFigure, BenchSection } from "./types.ts";
import {
  generateCertificateAuthority,
  issueServerCertificate,
} from "../../src/platform/certificates.ts";

function rate(count: number, ms: number, unit: string): string {
  return `${Math.round((count * 1000) / ms).toLocaleString("en-US")} ${unit}/s`;
}

/** The certificates section of the benchmarks. */
export const section: BenchSection = {
  title: "Certificates (ECDSA P-256, no openssl)",
  async run(): Promise<BenchFigure[]> {
    let started = performance.now();
    const ca = await generateCertificateAuthority({ commonName: "bench-ca" });
    const caMs = performance.now() - started;

    const issued = 200;
    started = performance.now();
    let server = await issueServerCertificate(ca, { hostnames: ["127.0.0.1"] });
    for (let i = 1; i < issued; i++) {
      server = await issueServerCertificate(ca, { hostnames: ["localhost", "127.0.0.1", "::1"] });
    }
    const issueMs = performance.now() - started;

    const http = Deno.serve(
      {
        hostname: "127.0.0.1",
        port: 0,
        cert: server.certPem,
        key: server.keyPem,
        onListen() {},
      },
      () => new Response("ok"),
    );
    const handshakes = 100;
    started = performance.now();
    for (let i = 0; i < handshakes; i++) {
      // A fresh client each time: every request is a new TLS handshake.
      const client = Deno.createHttpClient({ caCerts: [ca.certPem] });
      await (await fetch(`https://127.0.0.1:${http.addr.port}/`, { client })).text();
      client.close();
    }
    const handshakeMs = performance.now() - started;
    await http.shutdown();

    return [
      { name: "CA generation", value: `${caMs.toFixed(1)} ms` },
      { name: "server certificates issued", value: rate(issued, issueMs, "certs") },
      {
        name: "TLS connections (handshake + request)",
        value: rate(handshakes, handshakeMs, "conn"),
      },
    ];
  },
};
