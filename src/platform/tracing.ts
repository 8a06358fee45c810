/**
 * Tracing through OpenTelemetry's API: a span per handler run (with the object's reference
 * and the outcome) and a child span per Kubernetes API request, exported by whatever SDK
 * the user registers (`@opentelemetry/sdk-trace-node`, Deno's own OpenTelemetry, ...).
 *
 * Without an SDK, OpenTelemetry's API is a no-op; here it costs even less: whether a real
 * tracer provider is registered is looked at when an operator starts ({@link
 * refreshTracing}), and without one nothing of the tracing runs at all. The API itself is
 * loaded only then, and only if something registered with it (its global registry exists):
 * loading it costs a plain operator's start-up tens of milliseconds for nothing.
 *
 * @module
 */
import type { Attributes, Tracer } from "@opentelemetry/api";
import { outsideContexts } from "./async_context.ts";

/** Span attributes: names to strings, numbers or booleans. */
export type { Attributes };

type OpenTelemetryApi = typeof import("@opentelemetry/api");

/**
 * Where OpenTelemetry's API of major version 1 keeps what is registered with it (tracer
 * providers, context managers), shared by all its copies in a process: absent, nothing was.
 */
const REGISTRY = Symbol.for("opentelemetry.js.api.1");

let tracer: Tracer | undefined;
let api: OpenTelemetryApi | undefined;

/**
 * Look again whether a tracer provider that records is registered (the operator calls it
 * at start: register the SDK before starting the operator). Returns whether it traces.
 */
export async function refreshTracing(): Promise<boolean> {
  if (api === undefined && !(REGISTRY in globalThis)) {
    tracer = undefined;
    return false;
  }
  api ??= await outsideContexts(() => import("@opentelemetry/api"));
  const candidate = api.trace.getTracer("kopf");
  const probe = candidate.startSpan("kopf.probe");
  const recording = probe.isRecording();
  probe.end();
  tracer = recording ? candidate : undefined;
  return recording;
}

/** Whether spans are made at all (a recording tracer provider was found at start). */
export function isTracing(): boolean {
  return tracer !== undefined;
}

/**
 * Run `fn` in a span (the current one's child, if any); the span records a thrown error
 * and ends when `fn` settles. Without tracing, just `fn()`.
 */
export async function inSpan<T>(
  name: string,
  attributes: Attributes,
  fn: (annotate: (more: Attributes) => void) => Promise<T> | T,
  kind: "internal" | "client" = "internal",
): Promise<T> {
  const active = tracer;
  if (active === undefined || api === undefined) return await fn(noAnnotations);
  const { SpanKind, SpanStatusCode } = api;
  return await active.startActiveSpan(
    name,
    { attributes, kind: kind === "client" ? SpanKind.CLIENT : SpanKind.INTERNAL },
    async (span) => {
      try {
        const result = await fn((more) => span.setAttributes(more));
        span.setStatus({ code: SpanStatusCode.OK });
        return result;
      } catch (error) {
        span.recordException(error instanceof Error ? error : String(error));
        span.setStatus({
          code: SpanStatusCode.ERROR,
          message: error instanceof Error ? error.message : String(error),
        });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

function noAnnotations(): void {}
