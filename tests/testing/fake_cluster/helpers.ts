/**
 * Helpers for the FakeCluster tests: raw HTTP calls and watch-stream readers.
 */
import type { FakeCluster } from "../../../src/testing/mod.ts";
import type { JsonObject } from "../../../src/structs/bodies.ts";
import { startHttpServer } from "../../../src/platform/http_server.ts";
import {
  generateCertificateAuthority,
  issueServerCertificate,
} from "../../../src/platform/certificates.ts";

/** A decoded JSON response. */
export interface Reply {
  status: number;
  headers: Headers;
  // deno-lint-ignore no-explicit-any
  body: any;
}

/** Call the fake API server over HTTP with JSON in and out. */
export async function call(
  cluster: FakeCluster,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Reply> {
  const auth: Record<string, string> = cluster.token
    ? { authorization: `Bearer ${cluster.token}` }
    : {};
  const response = await fetch(cluster.url + path, {
    method,
    headers: {
      ...auth,
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
      ...headers,
    },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON: keep the text.
  }
  return { status: response.status, headers: response.headers, body: parsed };
}

/** A ConfigMap manifest. */
export function configMap(
  name: string,
  data: Record<string, string> = {},
  extra: Record<string, unknown> = {},
) {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, ...extra }, data };
}

/** The KopfExample CRD, namespaced, with a status subresource and a schema. */
export function exampleCrd(extraVersions: JsonObject[] = []) {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "kopfexamples.kopf.dev" },
    spec: {
      group: "kopf.dev",
      scope: "Namespaced",
      names: {
        kind: "KopfExample",
        plural: "kopfexamples",
        singular: "kopfexample",
        shortNames: ["kex"],
        categories: ["all", "kopf"],
      },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: [{ name: "Field", type: "string", jsonPath: ".spec.field" }],
          schema: {
            openAPIV3Schema: {
              type: "object",
              properties: {
                spec: {
                  type: "object",
                  properties: {
                    field: { type: "string" },
                    replicas: { type: "integer", default: 1, minimum: 0 },
                    free: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
                  },
                },
                status: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
              },
            },
          },
        },
        ...extraVersions,
      ],
    },
  };
}

/** A parsed watch event. */
export interface WatchEvent {
  type: string;
  // deno-lint-ignore no-explicit-any
  object: any;
}

/** Reads a watch stream event by event. */
export class WatchReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  #buffer = "";

  constructor(readonly response: Response) {
    this.#reader = response.body!.getReader();
  }

  /** The next event, or `undefined` when the stream ended cleanly. Rejects if it broke. */
  async next(): Promise<WatchEvent | undefined> {
    while (true) {
      const newline = this.#buffer.indexOf("\n");
      if (newline >= 0) {
        const line = this.#buffer.slice(0, newline);
        this.#buffer = this.#buffer.slice(newline + 1);
        if (line.trim()) return JSON.parse(line);
        continue;
      }
      const { done, value } = await this.#reader.read();
      if (done) return undefined;
      this.#buffer += this.#decoder.decode(value, { stream: true });
    }
  }

  /** The next `n` events. */
  async take(n: number): Promise<WatchEvent[]> {
    const events: WatchEvent[] = [];
    for (let i = 0; i < n; i++) {
      const event = await this.next();
      if (!event) throw new Error(`the watch ended after ${i} of ${n} events`);
      events.push(event);
    }
    return events;
  }

  /** Stop reading and close the connection. */
  async close(): Promise<void> {
    await this.#reader.cancel().catch(() => {});
  }
}

/** Open a watch over HTTP. */
export async function watch(
  cluster: FakeCluster,
  path: string,
  headers: Record<string, string> = {},
): Promise<WatchReader> {
  const auth: Record<string, string> = cluster.token
    ? { authorization: `Bearer ${cluster.token}` }
    : {};
  const response = await fetch(cluster.url + path, { headers: { ...auth, ...headers } });
  if (response.status !== 200) {
    throw new Error(`watch ${path}: HTTP ${response.status}: ${await response.text()}`);
  }
  return new WatchReader(response);
}

/** A reply to {@link rawRequest}: the status and the body's text. */
export interface RawReply {
  status: number;
  body: string;
}

/**
 * Send one HTTP/1.1 request with this exact request target, byte for byte: `fetch()`
 * normalizes URLs (`//`, dot segments), a client that means harm does not.
 */
export async function rawRequest(
  cluster: FakeCluster,
  method: string,
  target: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<RawReply> {
  const { hostname, port } = new URL(cluster.url);
  const connection = cluster.caCertificate
    ? await Deno.connectTls({ hostname, port: Number(port), caCerts: [cluster.caCertificate] })
    : await Deno.connect({ hostname, port: Number(port) });
  const lines = [`${method} ${target} HTTP/1.1`, `host: ${hostname}:${port}`, "connection: close"];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  const bytes = new TextEncoder().encode(body ?? "");
  if (body !== undefined) lines.push(`content-length: ${bytes.length}`);
  const head = new TextEncoder().encode(lines.join("\r\n") + "\r\n\r\n");
  await connection.write(head);
  if (bytes.length) await connection.write(bytes);
  const text = await new Response(connection.readable).text();
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
  return { status, body: text.slice(text.indexOf("\r\n\r\n") + 4) };
}

/**
 * A validating webhook on ConfigMap creates that holds every review until `release()`, so
 * that a test can keep requests open in the server for as long as it likes; `arrived(n)`
 * resolves once n reviews are held. Register `configuration` before the creates.
 */
export async function holdingWebhook() {
  const ca = await generateCertificateAuthority();
  const cert = await issueServerCertificate(ca, { hostnames: ["127.0.0.1"] });
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let held = 0;
  const waiters: { n: number; resolve: () => void }[] = [];
  const server = await startHttpServer({
    tls: { certificate: cert.certPem, privateKey: cert.keyPem },
    handler: async (request) => {
      const review = await request.json();
      held++;
      for (const w of waiters.filter((w) => held >= w.n)) w.resolve();
      await released;
      return Response.json({
        apiVersion: "admission.k8s.io/v1",
        kind: "AdmissionReview",
        response: { uid: review.request.uid, allowed: true },
      });
    },
  });
  const configuration = {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingWebhookConfiguration",
    metadata: { name: "holding" },
    webhooks: [{
      name: "holding.kopf.dev",
      sideEffects: "None",
      admissionReviewVersions: ["v1"],
      timeoutSeconds: 30,
      clientConfig: { url: `${server.url}/validate`, caBundle: btoa(ca.certPem) },
      rules: [{
        operations: ["CREATE"],
        apiGroups: [""],
        apiVersions: ["v1"],
        resources: ["configmaps"],
      }],
    }],
  };
  return {
    configuration,
    release,
    arrived: (n: number) =>
      held >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve })),
    [Symbol.asyncDispose]: async () => {
      release();
      await server.close();
    },
  };
}
