/**
 * Small assertion helpers for the tests (JSR's @std/assert is out of reach here).
 */

/** Deep structural equality for JSON-like values, Maps, Sets, Dates and arrays. */
export function equal(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (a instanceof Map && b instanceof Map) {
    if (a.size !== b.size) return false;
    for (const [k, v] of a) if (!b.has(k) || !equal(v, b.get(k))) return false;
    return true;
  }
  if (a instanceof Set && b instanceof Set) {
    if (a.size !== b.size) return false;
    for (const v of a) if (!b.has(v)) return false;
    return true;
  }
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  const ka = Object.keys(a as object).filter((k) =>
    (a as Record<string, unknown>)[k] !== undefined
  );
  const kb = Object.keys(b as object).filter((k) =>
    (b as Record<string, unknown>)[k] !== undefined
  );
  if (ka.length !== kb.length) return false;
  for (const k of ka) {
    if (!equal((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}

function show(v: unknown): string {
  try {
    return Deno.inspect(v, { depth: 10, sorted: true, compact: false });
  } catch {
    return String(v);
  }
}

/** An assertion failure. */
export class AssertionError extends Error {
  override name = "AssertionError";
}

/** Fail unless the two values are deeply equal. */
export function assertEquals<T>(actual: T, expected: T, msg?: string): void {
  if (!equal(actual, expected)) {
    throw new AssertionError(
      `${msg ? msg + ": " : ""}values differ\n--- actual\n${show(actual)}\n--- expected\n${
        show(expected)
      }`,
    );
  }
}

/** Fail if the two values are deeply equal. */
export function assertNotEquals<T>(actual: T, expected: T, msg?: string): void {
  if (equal(actual, expected)) {
    throw new AssertionError(`${msg ? msg + ": " : ""}values are equal: ${show(actual)}`);
  }
}

/** Fail unless the condition is truthy. */
export function assert(cond: unknown, msg = "assertion failed"): asserts cond {
  if (!cond) throw new AssertionError(msg);
}

/** Fail unless the string contains the fragment. */
export function assertStringIncludes(actual: string, fragment: string, msg?: string): void {
  if (!actual.includes(fragment)) {
    throw new AssertionError(
      `${msg ? msg + ": " : ""}expected ${show(actual)} to contain ${show(fragment)}`,
    );
  }
}

/** Fail unless the string matches the pattern. */
export function assertMatch(actual: string, re: RegExp, msg?: string): void {
  if (!re.test(actual)) {
    throw new AssertionError(`${msg ? msg + ": " : ""}expected ${show(actual)} to match ${re}`);
  }
}

type ErrorClass<E extends Error> = abstract new (...args: never[]) => E;

/** Fail unless `fn` throws (an instance of `cls`, with `msgIncludes` in its message). */
export function assertThrows<E extends Error = Error>(
  fn: () => unknown,
  cls?: ErrorClass<E>,
  msgIncludes?: string,
): E {
  try {
    fn();
  } catch (e) {
    checkError(e, cls, msgIncludes);
    return e as E;
  }
  throw new AssertionError("expected the function to throw");
}

/** Fail unless the promise rejects (with an instance of `cls`, with `msgIncludes`). */
export async function assertRejects<E extends Error = Error>(
  fn: () => Promise<unknown>,
  cls?: ErrorClass<E>,
  msgIncludes?: string,
): Promise<E> {
  try {
    await fn();
  } catch (e) {
    checkError(e, cls, msgIncludes);
    return e as E;
  }
  throw new AssertionError("expected the promise to reject");
}

function checkError(e: unknown, cls?: ErrorClass<Error>, msgIncludes?: string): void {
  if (cls && !(e instanceof cls)) {
    throw new AssertionError(`expected ${cls.name}, got ${show(e)}`);
  }
  if (msgIncludes !== undefined) {
    const message = e instanceof Error ? e.message : String(e);
    if (!message.includes(msgIncludes)) {
      throw new AssertionError(
        `expected the message ${show(message)} to contain ${show(msgIncludes)}`,
      );
    }
  }
}

/**
 * Wait for the promise, failing with `what` if it does not settle within the seconds:
 * for awaited events that might never come, so that a test fails instead of hanging.
 */
export async function assertSettlesWithin<T>(
  promise: Promise<T>,
  seconds: number,
  what: string,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new AssertionError(`${what} did not happen within ${seconds}s`)),
      seconds * 1000,
    );
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Wait until the condition holds (checked every 10 ms), failing with `what` after the
 * seconds: for states that no event announces.
 */
export async function assertEventually(
  what: string,
  check: () => boolean,
  seconds = 10,
): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  while (!check()) {
    if (Date.now() > deadline) throw new AssertionError(`Timed out waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
