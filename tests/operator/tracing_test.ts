/**
 * Tracing through OpenTelemetry's API with an SDK registered (as a user would): a span per
 * processed object state, with a child span per handler run (the object's reference and
 * the outcome) and per API request. Without an SDK, nothing of it runs.
 */
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { assert, assertEquals } from "../assert.ts";
import { TemporaryError } from "../../src/structs/errors.ts";
import { on } from "../../src/intents/registration.ts";
import { isTracing, refreshTracing } from "../../src/platform/tracing.ts";
import { Calls, clusterRegistry, handled, kex, startCluster, whileRunning } from "./harness.ts";

Deno.test("without an SDK, tracing is off and costs nothing", async () => {
  trace.disable();
  assertEquals(await refreshTracing(), false);
  assertEquals(isTracing(), false);
});

Deno.test("with an SDK: process spans with handler and API request spans as children", async () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const contexts = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contexts);
  trace.setGlobalTracerProvider(provider);
  try {
    await using cluster = await startCluster();
    const registry = clusterRegistry(cluster);
    const calls = new Calls<number>();
    on.create("kopfexamples", { registry }, function create_fn({ retry }) {
      calls.add(retry);
      if (retry === 0) throw new TemporaryError("later", { delay: 0.05 });
      return "done";
    });
    await whileRunning(registry, async () => {
      cluster.create(kex("traced"));
      await cluster.waitFor("kopfexamples", "traced", handled);
    });
    const spans = exporter.getFinishedSpans();
    const named = (prefix: string) => spans.filter((s: ReadableSpan) => s.name.startsWith(prefix));
    const handlers = named("kopf handler create_fn");
    assertEquals(handlers.length, 2, spans.map((s) => s.name).join("\n"));
    assertEquals(
      handlers.map((s) => s.attributes["kopf.handler.outcome"]),
      ["temporary_error", "success"],
    );
    assertEquals(handlers[1].attributes["kopf.object.name"], "traced");
    assertEquals(handlers[1].attributes["k8s.namespace.name"], "default");
    assertEquals(handlers[1].attributes["kopf.resource"], "kopfexamples.kopf.dev");
    const processes = named("kopf process kopfexamples.kopf.dev");
    const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
    for (const handler of handlers) {
      assert(
        processes.some((p) => p.spanContext().spanId === parentOf(handler)),
        "each handler span is a child of a process span",
      );
    }
    const patches = named("kopf api patch kopfexamples.kopf.dev");
    assert(patches.length >= 2, spans.map((s) => s.name).join("\n"));
    assert(
      patches.every((p) => processes.some((q) => q.spanContext().spanId === parentOf(p))),
      "the outcome patches are children of the process spans",
    );
    assertEquals(patches[0].attributes["http.response.status_code"], 200);
  } finally {
    trace.disable();
    context.disable();
    await provider.shutdown();
  }
});
