/**
 * Preloaded into a benchmark's child process (`deno run --preload`) by `scripts/profile.ts`:
 * V8's CPU profiler, driven in-process through `node:inspector` — unlike `--inspect`, which
 * makes Deno report every fetch and body chunk to the debugger, distorting what is measured.
 *
 * SIGUSR1 starts the profiler; SIGUSR2 stops it, writes the profile (JSON, as
 * `.cpuprofile`) to the path in `KOPF_CPU_PROFILE`, and prints `PROFILED`. With
 * `KOPF_HEAP_PROFILE` set to a path, V8's sampling heap profiler runs alongside (objects
 * collected since included: what the garbage collector had to deal with) and its profile
 * (`.heapprofile`) is written there.
 *
 * @module
 */
import { Session } from "node:inspector";

const out = Deno.env.get("KOPF_CPU_PROFILE") ?? "kopf.cpuprofile";
const interval = Number(Deno.env.get("KOPF_CPU_PROFILE_INTERVAL") ?? "200");
const session = new Session();
session.connect();
const post = <T>(method: string, params: Record<string, unknown> = {}): Promise<T> =>
  new Promise((resolve, reject) =>
    session.post(method, params, (error, result) => error ? reject(error) : resolve(result as T))
  );

const heap = Deno.env.get("KOPF_HEAP_PROFILE");

Deno.addSignalListener("SIGUSR1", async () => {
  await post("Profiler.enable");
  await post("Profiler.setSamplingInterval", { interval });
  await post("Profiler.start");
  if (heap) {
    await post("HeapProfiler.enable");
    // Every allocated object is sampled with the probability of its size / 32 KiB.
    await post("HeapProfiler.startSampling", {
      samplingInterval: 32768,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
  }
  console.log("PROFILING");
});
Deno.addSignalListener("SIGUSR2", async () => {
  const { profile } = await post<{ profile: unknown }>("Profiler.stop");
  await Deno.writeTextFile(out, JSON.stringify(profile));
  if (heap) {
    const sampled = await post<{ profile: unknown }>("HeapProfiler.stopSampling");
    await Deno.writeTextFile(heap, JSON.stringify(sampled.profile));
  }
  console.log("PROFILED");
});
