// Runs under Node against the npm build (copied into the package directory, so that the
// package imports itself by name): the webhook server of the public API under the
// attacks its limits are for. Prints one JSON report line on stdout.
// Usage: node server_limits.mjs
import * as net from "node:net";
import { kopf } from "@kopf/kopf";

// The refusals go to the server's context's logger, as an operator's: here to stderr.
kopf.configure({ logFormat: "plain" });
const none = () => {};
const logger = {
  debug: none,
  info: none,
  warning: (message) => console.error(message),
  error: none,
};
const stop = new AbortController();
const limits = {
  bodyLimit: 1024 * 1024,
  bufferLimit: 8 * 1024 * 1024,
  headerTimeout: 1,
  bodyTimeout: 1,
  idleTimeout: 1,
  clientConnectionLimit: 3,
  connectionLimit: 64,
};
const server = new kopf.WebhookServer({ port: 0, insecure: true });
const configs = server.serve(
  (review) => Promise.resolve({ ...review, response: { uid: review.request.uid, allowed: true } }),
  { signal: stop.signal, logger, limits },
)[Symbol.asyncIterator]();
const { value: config } = await configs.next();
const port = Number(new URL(config.url).port);
const serving = configs.next();

/** A connection from `from`; resolves once open, with the ms to its close (or reset). */
async function connect(from) {
  const opened = performance.now();
  const socket = net.connect({ host: "127.0.0.1", port, localAddress: from });
  socket.on("error", none);
  let received = "";
  socket.on("data", (chunk) => (received += chunk));
  const closed = new Promise((resolve) => socket.once("close", () => resolve()));
  await new Promise((resolve) => {
    socket.once("connect", resolve);
    socket.once("close", resolve);
  });
  return {
    socket,
    closed: closed.then(() => performance.now() - opened),
    received: () => received,
  };
}

/** A review POSTed from 127.0.0.1: the ms its answer took, or the error. */
async function review() {
  const started = performance.now();
  const body = {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: { uid: "u" },
  };
  const response = await fetch(config.url, {
    method: "POST",
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(1000),
  });
  const answer = await response.json();
  return {
    status: response.status,
    allowed: answer.response?.allowed,
    ms: performance.now() - started,
  };
}

// 1. One client holds as many idle connections as the server takes in all.
const idle = [];
for (let i = 0; i < limits.connectionLimit; i++) idle.push(await connect("127.0.0.2"));
await new Promise((resolve) => setTimeout(resolve, 200));
const reviews = [];
for (let i = 0; i < 5; i++) reviews.push(await review().catch((error) => String(error)));
const idleOpen = idle.filter((c) => !c.socket.destroyed && c.socket.readyState === "open").length;
for (const c of idle) c.socket.destroy();

// 2. A connection that never sends a byte; 3. one that trickles its head a byte at a time.
const silent = await connect("127.0.0.3");
const trickling = await connect("127.0.0.4");
const head = `POST / HTTP/1.1\r\nHost: x\r\nX-Long: ${"a".repeat(100)}\r\n\r\n`;
let sent = 0;
const trickle = setInterval(() => {
  if (sent < head.length && !trickling.socket.destroyed) trickling.socket.write(head[sent++]);
}, 100);
// 4. A kept-alive connection idle after its first request.
const kept = await connect("127.0.0.5");
const review1 = JSON.stringify({ request: { uid: "k" } });
kept.socket.write(
  `POST / HTTP/1.1\r\nHost: x\r\nContent-Length: ${review1.length}\r\n\r\n${review1}`,
);
const [silentMs, tricklingMs, keptMs] = await Promise.all([
  silent.closed,
  trickling.closed,
  kept.closed,
]);
clearInterval(trickle);

stop.abort();
await serving;
console.log(JSON.stringify({
  reviews,
  idleOpen,
  silentMs,
  tricklingMs,
  trickled: sent,
  keptMs,
  keptAnswer: kept.received().split("\r\n")[0],
}));
