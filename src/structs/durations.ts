/**
 * Durations as people write them on command lines: a plain number of seconds (`90`,
 * `1.5`), or a Go duration as Kubernetes' own flags take them (`300ms`, `5s`, `1m30s`,
 * `1h0m0s`), so that a value copied from a kube-apiserver manifest works as it is.
 *
 * @module
 */

/** Seconds per unit of a Go duration. */
const UNITS: Readonly<Record<string, number>> = {
  ns: 1e-9,
  us: 1e-6,
  "\u00b5s": 1e-6, // U+00B5 micro sign
  "\u03bcs": 1e-6, // U+03BC Greek mu
  ms: 1e-3,
  s: 1,
  m: 60,
  h: 3600,
};

/** A decimal number (Go allows `.5` and `5.`) and its unit, anchored where the last ended. */
const PART = /(\d+\.?\d*|\.\d+)(ns|us|\u00b5s|\u03bcs|ms|s|m|h)/y;
const PLAIN_SECONDS = /^(\d+\.?\d*|\.\d+)$/;

/**
 * The seconds a duration stands for -- a plain number of seconds, or a Go duration made
 * of numbers with units (`ns`, `us`, `ms`, `s`, `m`, `h`), such as `1m30s` -- or
 * `undefined` when the text is neither (signs, exponents, spaces and bare units included).
 */
export function secondsOfDuration(text: string): number | undefined {
  if (PLAIN_SECONDS.test(text)) return Number(text);
  if (text === "") return undefined;
  let seconds = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < text.length) {
    const start = PART.lastIndex;
    const match = PART.exec(text);
    if (match === null || match.index !== start) return undefined;
    seconds += Number(match[1]) * UNITS[match[2]];
  }
  return Number.isFinite(seconds) ? seconds : undefined;
}
