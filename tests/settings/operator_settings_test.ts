import { assert, assertEquals, assertThrows } from "../assert.ts";
import {
  AnnotationsDiffBaseStorage,
  AnnotationsProgressStorage,
  ConfigurationError,
  OperatorSettings,
  SmartProgressStorage,
} from "../../src/kopf.ts";

Deno.test("settings have Kopf's documented defaults, in seconds", () => {
  const s = new OperatorSettings();
  assertEquals(s.posting.enabled, true);
  assertEquals(s.posting.level, "info");
  assertEquals(s.posting.reportingComponent, "kopf");
  assertEquals(s.posting.reportingInstance, "dev");
  assertEquals(s.watching.serverTimeout, null);
  assertEquals(s.watching.clientTimeout, null);
  assertEquals(s.watching.connectTimeout, null);
  assertEquals(s.watching.reconnectBackoff, 0.1);
  assertEquals(s.batching.workerLimit, null);
  assertEquals(s.batching.idleTimeout, 5);
  assertEquals(s.batching.batchWindow, 0.1);
  assertEquals(s.batching.exitTimeout, 2);
  assertEquals([...s.batching.errorDelays], [
    1,
    1,
    2,
    3,
    5,
    8,
    13,
    21,
    34,
    55,
    89,
    144,
    233,
    377,
    610,
  ]);
  assertEquals(s.networking.requestTimeout, 300);
  assertEquals(s.networking.connectTimeout, null);
  assertEquals(s.networking.errorBackoffs, [1, 1, 2, 3, 5, 8, 13, 21]);
  assertEquals(s.persistence.finalizer, "kopf.zalando.org/KopfFinalizerMarker");
  assert(s.persistence.progressStorage instanceof SmartProgressStorage);
  assert(s.persistence.diffbaseStorage instanceof AnnotationsDiffBaseStorage);
  assertEquals(s.persistence.consistencyTimeout, 5);
  assertEquals(s.persistence.sensitiveFields, []);
  assertEquals(s.background.cancellationPolling, 60);
  assertEquals(s.background.instantExitTimeout, null);
  assertEquals(s.scanning.disabled, false);
  assertEquals(s.admission.server, null);
  assertEquals(s.admission.managed, null);
  assertEquals(s.peering.name, "default");
  assertEquals(s.peering.priority, 0);
  assertEquals(s.peering.lifetime, 60);
  assertEquals(s.peering.mandatory, false);
  assertEquals(s.peering.standalone, false);
  assertEquals(s.peering.stealth, false);
  assertEquals(s.peering.clusterwide, false);
});

Deno.test("each operator gets its own settings and storages", () => {
  const a = new OperatorSettings();
  const b = new OperatorSettings();
  a.posting.level = "error";
  assertEquals(b.posting.level, "info");
  assert(a.persistence.progressStorage !== b.persistence.progressStorage);
});

Deno.test("constructor overrides are applied per section and validated", () => {
  const storage = new AnnotationsProgressStorage({ prefix: "my-op.example.com" });
  const s = new OperatorSettings({
    watching: { serverTimeout: 600 },
    persistence: { progressStorage: storage, finalizer: "my-op.example.com/finalizer" },
    peering: { priority: 100 },
  });
  assertEquals(s.watching.serverTimeout, 600);
  assertEquals(s.watching.reconnectBackoff, 0.1);
  assert(s.persistence.progressStorage === storage);
  assertEquals(s.persistence.finalizer, "my-op.example.com/finalizer");
  assertEquals(s.peering.priority, 100);
});

Deno.test("bad settings are refused with the path and what is expected", () => {
  assertThrows(
    () => new OperatorSettings({ watching: { serverTimeout: -1 } }),
    ConfigurationError,
    "settings.watching.serverTimeout must be a number of seconds ≥ 0, or null for none; got -1.",
  );
  assertThrows(
    () => new OperatorSettings({ posting: { level: "loud" as "info" } }),
    ConfigurationError,
    'settings.posting.level must be "debug", "info"',
  );
  assertThrows(
    () => new OperatorSettings({ watching: { serverTimout: 1 } as never }),
    ConfigurationError,
    "Unknown setting settings.watching.serverTimout",
  );
  assertThrows(
    () => new OperatorSettings({ logging: {} } as never),
    ConfigurationError,
    'Unknown settings section "logging"',
  );
  assertThrows(
    () => new OperatorSettings({ posting: 5 } as never),
    ConfigurationError,
    "settings.posting must be given as an object of fields",
  );
  const s = new OperatorSettings();
  (s.persistence as { progressStorage: unknown }).progressStorage = { fetch() {} };
  assertThrows(() => s.validate(), ConfigurationError, "an instance of ProgressStorage");
  const t = new OperatorSettings();
  t.batching.errorDelays = [1, "2" as unknown as number];
  assertThrows(
    () => t.validate(),
    ConfigurationError,
    "settings.batching.errorDelays must be a list",
  );
});

Deno.test("applying: the field manager and force, the name checked as the API server checks it", () => {
  const s = new OperatorSettings();
  assertEquals([s.applying.fieldManager, s.applying.force], ["kopf", true]);
  const t = new OperatorSettings({ applying: { fieldManager: "example-operator", force: false } });
  assertEquals([t.applying.fieldManager, t.applying.force], ["example-operator", false]);
  new OperatorSettings({ applying: { fieldManager: "my operator ünïcode" } }); // printable
  new OperatorSettings({ applying: { fieldManager: "x".repeat(128) } });
  const expected = "settings.applying.fieldManager must be a non-empty string of at most 128 " +
    "printable characters; got";
  for (const bad of ["", "x".repeat(129), "ü".repeat(65), "tab\there", "nbsp\u00a0", "nl\n"]) {
    assertThrows(
      () => new OperatorSettings({ applying: { fieldManager: bad } }),
      ConfigurationError,
      expected,
    );
  }
  t.applying.force = "yes" as unknown as boolean;
  assertThrows(() => t.validate(), ConfigurationError, "settings.applying.force must be true");
});

Deno.test("watch selectors: entries are checked, the bad one and its term named", () => {
  const s = new OperatorSettings({
    watching: { selectors: [{ resource: "pods", labelSelector: "app=web" }] },
  });
  s.validate();
  s.watching.selectors.push({ labelSelector: "tier in (a,b" });
  assertThrows(
    () => s.validate(),
    ConfigurationError,
    "settings.watching.selectors must be a list of { resource?, labelSelector?, fieldSelector? } " +
      'with strings (entry 1: the label selector "tier in (a,b" has a term that does not parse',
  );
  s.watching.selectors = [{ resource: "", fieldSelector: "x=1" }];
  assertThrows(
    () => s.validate(),
    ConfigurationError,
    "(entry 0: The resource name must not be empty",
  );
  s.watching.selectors = [{ labelSelctor: "x" } as never];
  assertThrows(() => s.validate(), ConfigurationError, 'unknown field "labelSelctor"');
  s.watching.selectors = [];
  s.watching.selectByFilters = "no" as never;
  assertThrows(() => s.validate(), ConfigurationError, "selectByFilters must be true or false");
});

Deno.test("sensitive fields are a list of field paths; a bad entry is named", () => {
  const s = new OperatorSettings({ persistence: { sensitiveFields: ["spec.a", ["spec", "b.c"]] } });
  assertEquals(s.persistence.sensitiveFields, ["spec.a", ["spec", "b.c"]]);
  s.persistence.sensitiveFields.push("spec..password");
  assertThrows(
    () => s.validate(),
    ConfigurationError,
    "settings.persistence.sensitiveFields must be a list of field paths like " +
      '"spec.password" or ["spec", "tls.crt"] (entry 2, "spec..password", is not one); ' +
      "got an array.",
  );
  assertThrows(
    () => new OperatorSettings({ persistence: { sensitiveFields: "spec.a" as never } }),
    ConfigurationError,
    'settings.persistence.sensitiveFields must be a list of field paths like "spec.password"',
  );
  assertThrows(
    () => new OperatorSettings({ persistence: { sensitiveFields: [["spec", 1 as never]] } }),
    ConfigurationError,
    '(entry 0, ["spec", 1], is not one)',
  );
});

Deno.test("the webhook server's limits have defaults and are checked", () => {
  const s = new OperatorSettings();
  assertEquals(s.admission.bodyLimit, 7 * 1024 * 1024);
  assertEquals(s.admission.bufferLimit, 64 * 1024 * 1024);
  assertEquals(s.admission.headerTimeout, 10);
  assertEquals(s.admission.bodyTimeout, 30);
  assertEquals(s.admission.idleTimeout, 30);
  assertEquals(s.admission.clientConnectionLimit, 128);
  assertEquals(s.admission.connectionLimit, 1024);
  assertThrows(
    () => new OperatorSettings({ admission: { clientConnectionLimit: 2048 } }),
    ConfigurationError,
    "settings.admission.clientConnectionLimit (2048) must be at most connectionLimit (1024)",
  );
  assertThrows(
    () => new OperatorSettings({ admission: { bodyLimit: 0 } }),
    ConfigurationError,
    "settings.admission.bodyLimit must be a positive number of bytes; got 0.",
  );
  assertThrows(
    () => new OperatorSettings({ admission: { headerTimeout: null as unknown as number } }),
    ConfigurationError,
    "settings.admission.headerTimeout must be a number of seconds > 0; got null.",
  );
  assertThrows(
    () => new OperatorSettings({ admission: { connectionLimit: 1.5 } }),
    ConfigurationError,
    "settings.admission.connectionLimit must be a positive integer; got 1.5.",
  );
  assertThrows(
    () => new OperatorSettings({ admission: { bufferLimit: 1024 } }),
    ConfigurationError,
    "settings.admission.bufferLimit (1024 bytes) must be at least bodyLimit (7340032 bytes)",
  );
  const small = new OperatorSettings({ admission: { bodyLimit: 1024, bufferLimit: 4096 } });
  assertEquals([small.admission.bodyLimit, small.admission.bufferLimit], [1024, 4096]);
});

Deno.test("numeric Python log levels and iterables of backoffs are accepted", () => {
  const s = new OperatorSettings({ posting: { level: 30 }, networking: { errorBackoffs: 2 } });
  assertEquals(s.posting.level, 30);
  s.networking.errorBackoffs = new Set([1, 2]);
  s.validate();
});

Deno.test("peering.namespaced is the inverse of clusterwide", () => {
  const s = new OperatorSettings();
  assertEquals(s.peering.namespaced, true);
  s.peering.namespaced = false;
  assertEquals(s.peering.clusterwide, true);
});

Deno.test("Kopf's settings.execution and settings.process fail with what to do instead", () => {
  const settings = new OperatorSettings();
  const untyped = settings as unknown as Record<string, Record<string, unknown>>;
  assertThrows(
    () => (untyped.execution.maxWorkers = 20),
    ConfigurationError,
    "settings.execution (Kopf's thread pool for synchronous handlers: executor, max_workers) " +
      "does not exist in TypeScript",
  );
  assertThrows(
    () => untyped.execution.executor,
    ConfigurationError,
    "move CPU-heavy work to a Worker",
  );
  assertThrows(
    () => (untyped.process.ultimateExitingTimeout = 60),
    ConfigurationError,
    "settings.process (Kopf's ultimate_exiting_timeout",
  );
  assertThrows(() => untyped.process, ConfigurationError, "settings.batching.exitTimeout");
  for (const section of ["execution", "process"]) {
    assertThrows(
      () => new OperatorSettings({ [section]: {} } as never),
      ConfigurationError,
      `settings.${section} (Kopf's`,
    );
  }
  // The other sections are untouched by it, and the settings still validate.
  settings.validate();
  assertEquals(Object.keys(settings).includes("execution"), false);
});

Deno.test("conditions: on by default with the standard types; types are checked and distinct", () => {
  const s = new OperatorSettings();
  assertEquals(
    [s.conditions.enabled, s.conditions.ready, s.conditions.reconciling, s.conditions.stalled],
    [true, "Ready", "Reconciling", "Stalled"],
  );
  const renamed = new OperatorSettings({
    conditions: { ready: "example.com/Available", enabled: false },
  });
  assertEquals([renamed.conditions.ready, renamed.conditions.enabled], [
    "example.com/Available",
    false,
  ]);
  assertThrows(
    () => new OperatorSettings({ conditions: { ready: "Not Ready" } }),
    ConfigurationError,
    'settings.conditions.ready must be a condition type like "Ready"; got "Not Ready".',
  );
  assertThrows(
    () => new OperatorSettings({ conditions: { enabled: "yes" as unknown as boolean } }),
    ConfigurationError,
    "settings.conditions.enabled must be true or false",
  );
  assertThrows(
    () => new OperatorSettings({ conditions: { stalled: "Ready" } }),
    ConfigurationError,
    "settings.conditions: ready, reconciling and stalled must be three different types",
  );
});

Deno.test("the client's adaptive concurrency: on by default, bounded, its bounds in order", () => {
  const s = new OperatorSettings();
  assertEquals(
    [
      s.networking.adaptiveConcurrency,
      s.networking.initialConcurrency,
      s.networking.minConcurrency,
      s.networking.maxConcurrency,
    ],
    [true, 8, 1, 256],
  );
  const fixed = new OperatorSettings({
    networking: {
      adaptiveConcurrency: true,
      minConcurrency: 4,
      initialConcurrency: 4,
      maxConcurrency: 4,
    },
  });
  assertEquals(fixed.networking.maxConcurrency, 4);
  assertThrows(
    () => new OperatorSettings({ networking: { maxConcurrency: 0 } }),
    ConfigurationError,
    "settings.networking.maxConcurrency must be a positive integer; got 0.",
  );
  assertThrows(
    () => new OperatorSettings({ networking: { minConcurrency: 10 } }),
    ConfigurationError,
    "minConcurrency (10) ≤ initialConcurrency (8) ≤ maxConcurrency (256) must hold",
  );
  s.networking.adaptiveConcurrency = "yes" as unknown as boolean;
  assertThrows(() => s.validate(), ConfigurationError, "adaptiveConcurrency must be true or false");
});
