/**
 * Client benchmarks: how fast watch streams of ~1 KB objects are parsed, alone and end
 * to end over HTTP on loopback (list, then a watch stream through the whole client).
 */
import type { BenchFigure, BenchSection } from "./types.ts";
import { JsonLines, NO_LINE } from "../../src/client/json_lines.ts";
import { ApiClient } from "../../src/client/api.ts";
import { Vault } from "../../src/client/vault.ts";
import { watchObjects } from "../../src/client/watch.ts";
import { Resource } from "../../src/structs/resources.ts";

const TARGET = 50_000;
const EVENTS = 100_000;
const CHUNK = 16 * 1024;

/** One watch event line with an object of about 1 KB. */
function eventLine(i: number): string {
  const object = {
    apiVersion: "kopf.dev/v1",
    kind: "KopfExample",
    metadata: {
      name: `example-${i}`,
      namespace: "default",
      uid: crypto.randomUUID(),
      resourceVersion: String(1000 + i),
      generation: 1,
      labels: { app: "bench", tier: "backend", index: String(i) },
      annotations: { "kopf.zalando.org/last-handled-configuration": "x".repeat(300) },
    },
    spec: { field: "value", items: ["ä", "日本", "🚀"], nested: { a: i, b: "y".repeat(200) } },
    status: { phase: "Running", message: "z".repeat(150) },
  };
  return JSON.stringify({ type: "MODIFIED", object }) + "\n";
}

function streamBytes(count: number): { bytes: Uint8Array; lineSize: number } {
  const lines = Array.from({ length: 1000 }, (_, i) => eventLine(i));
  const block = new TextEncoder().encode(lines.join(""));
  const bytes = new Uint8Array(block.length * Math.ceil(count / lines.length));
  for (let offset = 0; offset < bytes.length; offset += block.length) bytes.set(block, offset);
  return { bytes, lineSize: Math.round(block.length / lines.length) };
}

async function* chunked(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  for (let offset = 0; offset < bytes.length; offset += CHUNK) {
    yield bytes.subarray(offset, offset + CHUNK);
  }
}

function figure(name: string, rate: number): BenchFigure {
  return {
    name,
    value: `${Math.round(rate).toLocaleString("en-US")} events/s`,
    target: `≥ ${TARGET.toLocaleString("en-US")} events/s`,
    ok: rate >= TARGET,
  };
}

/** How many values the lines of the chunks hold, split and parsed as the watch does. */
async function countLines(chunks: AsyncIterable<Uint8Array>): Promise<number> {
  const lines = new JsonLines();
  let count = 0;
  for await (const chunk of chunks) {
    lines.push(chunk);
    while (lines.next() !== NO_LINE) count++;
  }
  lines.end();
  while (lines.next() !== NO_LINE) count++;
  return count;
}

async function parsingRate(): Promise<{ rate: number; lineSize: number }> {
  const { bytes, lineSize } = streamBytes(EVENTS);
  await countLines(chunked(bytes.subarray(0, bytes.length / 10))); // warm-up
  const started = performance.now();
  const count = await countLines(chunked(bytes));
  return { rate: count / ((performance.now() - started) / 1000), lineSize };
}

async function endToEndRate(): Promise<number> {
  const { bytes } = streamBytes(EVENTS);
  const total = EVENTS;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    if (new URL(request.url).searchParams.get("watch") !== "true") {
      return Response.json({
        kind: "KopfExampleList",
        metadata: { resourceVersion: "1" },
        items: [],
      });
    }
    let offset = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (offset >= bytes.length) return; // stays open, like a real watch
        controller.enqueue(bytes.subarray(offset, offset + CHUNK));
        offset += CHUNK;
      },
    });
    return new Response(body);
  });
  const vault = new Vault({
    relogin: () => Promise.resolve({ bench: { server: `http://127.0.0.1:${server.addr.port}` } }),
  });
  const api = new ApiClient(vault);
  const resource = new Resource({ group: "kopf.dev", version: "v1", plural: "kopfexamples" });
  const controller = new AbortController();
  let count = 0;
  let started = 0;
  try {
    for await (const item of watchObjects(api, resource, { signal: controller.signal })) {
      if (item.type === "LISTED") {
        started = performance.now();
      } else if (++count >= total) {
        controller.abort();
      }
    }
    return count / ((performance.now() - started) / 1000);
  } finally {
    await api.close();
    await server.shutdown();
  }
}

/** The client section of the benchmarks. */
export const section: BenchSection = {
  title: "Client: watch streams",
  async run(): Promise<BenchFigure[]> {
    const parsing = await parsingRate();
    const endToEnd = await endToEndRate();
    return [
      figure(`watch-stream parsing, ~${parsing.lineSize} B objects`, parsing.rate),
      figure(`watch over HTTP on loopback, ~${parsing.lineSize} B objects`, endToEnd),
    ];
  },
};
