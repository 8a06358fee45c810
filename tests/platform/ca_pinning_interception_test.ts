/**
 * The issue's check on TLS trust: an interceptor that lets only the first connection (the
 * pinning check, `ca_pinning.ts`) through to the real API server, and answers every other
 * connection itself with a certificate for the server's name from another CA, which the
 * runtime trusts — as it would trust a publicly trusted CA. `kopf run` runs against it in
 * a process of its own, as a user runs it.
 *
 * With that CA among Deno's roots (the system store, read from `SSL_CERT_FILE`), the
 * operator's token reaches the interceptor: the gap that the pinning check leaves, kept
 * here as the fact it is. With `DENO_TLS_CA_STORE` empty — what the generated Deployment
 * sets — the root store holds nothing and Deno's clients trust the kubeconfig's CA alone:
 * the interceptor's handshakes are refused and it receives no token. A root added by
 * `DENO_CERT` goes into the emptied store too, and the token leaks again. A write sent on
 * its own (over the HTTP/1.1 agent's sockets, not `fetch`) fares the same.
 */
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { FakeCluster } from "../../src/testing/mod.ts";
import {
  type CertificateAuthority,
  generateCertificateAuthority,
  issueServerCertificate,
} from "../../src/platform/certificates.ts";
import { type Spawned, spawnKopf, terminate } from "../commands/kopf_process.ts";
import { ROOT, runDeno } from "./commands.ts";

const EXAMPLE = new URL("../../examples/01-minimal/example.ts", import.meta.url).pathname;
const WRITE = `${ROOT}/tests/platform/fixtures/intercepted_write.ts`;

/** Something that happened at the interceptor, for the test to await. */
type Happening = "token" | "refused";

/**
 * A TCP front that passes its first connection through to the real server and every other
 * one to an impostor: a TLS server with a certificate for 127.0.0.1 from `ca`, which
 * records the method and `Authorization` header of each request and answers 503.
 */
class Interceptor {
  readonly url: string;
  /** The requests' method and `Authorization` header, as the impostor received them. */
  readonly authorizations: string[] = [];
  /** Handshakes the impostor's clients broke off (its certificate not trusted). */
  refused = 0;
  /** Connections passed through to the real server. */
  passedThrough = 0;
  readonly #front: Deno.Listener;
  readonly #impostor: Deno.TlsListener;
  readonly #waiters: { what: Happening; resolve: () => void }[] = [];
  readonly #tasks: Promise<unknown>[] = [];
  readonly #open = new Set<Deno.Conn>();

  private constructor(front: Deno.Listener, impostor: Deno.TlsListener, realPort: number) {
    this.#front = front;
    this.#impostor = impostor;
    this.url = `https://127.0.0.1:${(front.addr as Deno.NetAddr).port}`;
    this.#tasks.push(this.#serveFront(realPort), this.#serveImpostor());
  }

  static async start(real: string, ca: CertificateAuthority): Promise<Interceptor> {
    const certificate = await issueServerCertificate(ca, { hostnames: ["127.0.0.1"] });
    const impostor = Deno.listenTls({
      hostname: "127.0.0.1",
      port: 0,
      cert: certificate.certPem,
      key: certificate.keyPem,
    });
    const front = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    return new Interceptor(front, impostor, Number(new URL(real).port));
  }

  /** Resolves when the impostor records the thing (at once if it has). */
  when(what: Happening): Promise<void> {
    const seen = what === "token" ? this.authorizations.length > 0 : this.refused > 0;
    if (seen) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ what, resolve }));
  }

  #happened(what: Happening): void {
    for (const waiter of this.#waiters.filter((w) => w.what === what)) {
      this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  }

  async #serveFront(realPort: number): Promise<void> {
    const impostorPort = (this.#impostor.addr as Deno.NetAddr).port;
    for await (const client of this.#front) {
      const port = this.passedThrough === 0 ? realPort : impostorPort;
      if (port === realPort) this.passedThrough++;
      this.#tasks.push(this.#pipe(client, port));
    }
  }

  /** Bytes both ways between the client and the port, until either side ends. */
  async #pipe(client: Deno.Conn, port: number): Promise<void> {
    this.#open.add(client);
    let server: Deno.Conn | undefined;
    try {
      server = await Deno.connect({ hostname: "127.0.0.1", port });
      this.#open.add(server);
      const options = { preventClose: true, preventAbort: true, preventCancel: true };
      await Promise.race([
        client.readable.pipeTo(server.writable, options),
        server.readable.pipeTo(client.writable, options),
      ]);
    } catch {
      // Either side went away: both are closed below.
    } finally {
      for (const conn of [client, server]) {
        if (conn === undefined) continue;
        this.#open.delete(conn);
        try {
          conn.close();
        } catch {
          // closed already
        }
      }
    }
  }

  async #serveImpostor(): Promise<void> {
    for await (const conn of this.#impostor) this.#tasks.push(this.#impersonate(conn));
  }

  /** One connection to the impostor: the handshake, then requests answered with 503. */
  async #impersonate(conn: Deno.TlsConn): Promise<void> {
    this.#open.add(conn);
    try {
      try {
        await conn.handshake();
      } catch {
        this.refused++;
        this.#happened("refused");
        return;
      }
      const head = await readHead(conn);
      if (head === undefined) return;
      const authorization = /^authorization:\s*(.*)$/im.exec(head)?.[1]?.trim();
      if (authorization !== undefined) {
        this.authorizations.push(`${head.slice(0, head.indexOf(" "))} ${authorization}`);
        this.#happened("token");
      }
      const body = '{"kind":"Status","apiVersion":"v1","status":"Failure","code":503}';
      await conn.write(new TextEncoder().encode(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n" +
          `content-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`,
      ));
    } catch {
      // The client went away.
    } finally {
      this.#open.delete(conn);
      try {
        conn.close();
      } catch {
        // closed already
      }
    }
  }

  async [Symbol.asyncDispose](): Promise<void> {
    this.#front.close();
    this.#impostor.close();
    for (const conn of this.#open) {
      try {
        conn.close();
      } catch {
        // closed already
      }
    }
    await Promise.allSettled(this.#tasks);
  }
}

/** The head of one HTTP/1.1 request (up to the blank line); `undefined` if none came. */
async function readHead(conn: Deno.Conn): Promise<string | undefined> {
  const buffer = new Uint8Array(64 * 1024);
  let length = 0;
  const decoder = new TextDecoder();
  while (length < buffer.length) {
    const count = await conn.read(buffer.subarray(length));
    if (count === null) return undefined;
    length += count;
    const text = decoder.decode(buffer.subarray(0, length));
    if (text.includes("\r\n\r\n")) return text;
  }
  return undefined;
}

/** A kubeconfig for the server with the cluster's CA and token. */
async function kubeconfig(dir: string, server: string, cluster: FakeCluster): Promise<string> {
  const path = `${dir}/config`;
  await Deno.writeTextFile(
    path,
    `apiVersion: v1
kind: Config
clusters: [{ name: c, cluster: { server: "${server}", certificate-authority-data: "${
      btoa(cluster.caCertificate!)
    }" } }]
users: [{ name: u, user: { token: "${cluster.token}" } }]
contexts: [{ name: ctx, context: { cluster: c, user: u } }]
current-context: ctx
`,
  );
  return path;
}

/**
 * Until the impostor has seen a handshake refused, or 10 s: it sees it once the client's close
 * has come through the front, which can be after the client has given up (or exited).
 */
async function refusedOrTimeUp(interceptor: Interceptor): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    interceptor.when("refused"),
    new Promise((resolve) => timer = setTimeout(resolve, 10_000)),
  ]);
  clearTimeout(timer);
}

/** The fake cluster and an interceptor in front of it; the directory holds its CA. */
interface Setting {
  readonly cluster: FakeCluster;
  readonly interceptor: Interceptor;
  /** The environment for the runtime's trust, `{dir}` replaced. */
  readonly trust: Record<string, string>;
  readonly dir: string;
}

/**
 * The setting, with the environment given for the runtime's trust (`{dir}` in a value is
 * the directory holding the impostor's CA, as `ca.pem`).
 */
async function intercepting(
  trust: Record<string, string>,
  scenario: (setting: Setting) => Promise<void>,
): Promise<void> {
  await using cluster = await FakeCluster.start({ tls: true });
  const publicCa = await generateCertificateAuthority({ commonName: "publicly-trusted-ca" });
  await using interceptor = await Interceptor.start(cluster.url, publicCa);
  const dir = await Deno.makeTempDir({ prefix: "kopf-interception-" });
  try {
    await Deno.writeTextFile(`${dir}/ca.pem`, publicCa.certPem);
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(trust)) env[name] = value.replace("{dir}", dir);
    await scenario({ cluster, interceptor, trust: env, dir });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** `kopf run` against the interceptor, in the setting of {@link intercepting}. */
function intercepted(
  trust: Record<string, string>,
  scenario: (kopf: Spawned, interceptor: Interceptor, cluster: FakeCluster) => Promise<void>,
): Promise<void> {
  return intercepting(trust, async ({ cluster, interceptor, trust, dir }) => {
    const env = { KUBECONFIG: await kubeconfig(dir, interceptor.url, cluster), ...trust };
    const kopf = spawnKopf(["run", "-A", EXAMPLE], env);
    try {
      await scenario(kopf, interceptor, cluster);
    } finally {
      await terminate(kopf).catch(() => {});
    }
  });
}

/** One write through the interceptor, in a process of its own: its outcome. */
async function writeThrough({ cluster, interceptor, trust }: Setting): Promise<string> {
  const { code, stdout, stderr } = await runDeno(["run", "--allow-all", WRITE], {
    cwd: ROOT,
    env: {
      KOPF_PROBE_SERVER: interceptor.url,
      KOPF_PROBE_CA: cluster.caCertificate!,
      KOPF_PROBE_TOKEN: cluster.token!,
      ...trust,
    },
    timeout: 60,
  });
  assertEquals(code, 0, stderr);
  return stdout.trim();
}

/** The token reaches the impostor (the scenario fails if the operator ends first). */
async function tokenLeaks(kopf: Spawned, interceptor: Interceptor, cluster: FakeCluster) {
  const ended = kopf.finished.then(({ stderr }) => {
    throw new Error(`kopf ended before any token reached the interceptor:\n${stderr}`);
  });
  await Promise.race([interceptor.when("token"), ended]);
  assertEquals(interceptor.passedThrough, 1, "the pinning check went to the real server");
  assertEquals(interceptor.authorizations[0], `GET Bearer ${cluster.token}`);
}

Deno.test("with a publicly trusted CA among Deno's roots, the pinning check spares the token nothing", async () => {
  await intercepted(
    { DENO_TLS_CA_STORE: "system", SSL_CERT_FILE: "{dir}/ca.pem" },
    tokenLeaks,
  );
});

Deno.test("with DENO_TLS_CA_STORE empty, the interceptor is refused and receives no token", async () => {
  // The same CA in SSL_CERT_FILE: with no store named, the system's is not read at all.
  await intercepted(
    { DENO_TLS_CA_STORE: "", SSL_CERT_FILE: "{dir}/ca.pem" },
    async (kopf, interceptor) => {
      const { code, stderr } = await kopf.finished;
      assertEquals(interceptor.passedThrough, 1, "the pinning check went to the real server");
      await refusedOrTimeUp(interceptor);
      assert(interceptor.refused > 0, `the operator reached the impostor:\n${stderr}`);
      assertEquals(interceptor.authorizations, []);
      assertEquals(code, 1, stderr);
      assertMatch(stderr.trim().split("\n").at(-1)!, /Cannot verify the certificate of https:/);
    },
  );
});

Deno.test("a root that DENO_CERT adds goes into the emptied store too: the token leaks again", async () => {
  await intercepted({ DENO_TLS_CA_STORE: "", DENO_CERT: "{dir}/ca.pem" }, tokenLeaks);
});

Deno.test("a write over the agent's own sockets: its token leaks with the CA among the roots, not with them empty", async () => {
  await intercepting({ DENO_TLS_CA_STORE: "system", SSL_CERT_FILE: "{dir}/ca.pem" }, async (it) => {
    const outcome = await writeThrough(it);
    assertEquals(
      outcome,
      "APIServerError: POST /api/v1/namespaces/default/configmaps failed with HTTP 503.",
    );
    assertEquals(it.interceptor.passedThrough, 1, "the pinning check went to the real server");
    assertEquals(it.interceptor.authorizations, [`POST Bearer ${it.cluster.token}`]);
  });
  await intercepting({ DENO_TLS_CA_STORE: "", SSL_CERT_FILE: "{dir}/ca.pem" }, async (it) => {
    const outcome = await writeThrough(it);
    assertMatch(outcome, /^APICertificateError: Cannot verify the certificate/);
    assertEquals(it.interceptor.passedThrough, 1, "the pinning check went to the real server");
    await refusedOrTimeUp(it.interceptor);
    assert(it.interceptor.refused > 0, outcome);
    assertEquals(it.interceptor.authorizations, []);
  });
});
