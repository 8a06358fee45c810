/**
 * The client's tuning: the operator's settings sections, with the settings' defaults for
 * the fields left out.
 */
import { assertEquals } from "../assert.ts";
import { ApiClient } from "../../src/client/api.ts";
import { Vault } from "../../src/client/vault.ts";
import { OperatorSettings } from "../../src/settings/operator_settings.ts";
import {
  backoffsOf,
  inactivityTimeoutOf,
  reconnectBackoffOf,
  requestTimeoutOf,
} from "../../src/client/tuning.ts";

Deno.test("the client's tuning is the settings' sections: fields left out take their defaults", () => {
  const defaults = new OperatorSettings();
  assertEquals(requestTimeoutOf({}), defaults.networking.requestTimeout);
  assertEquals(requestTimeoutOf({ requestTimeout: null }), undefined);
  assertEquals([...iterate(backoffsOf(undefined))], [
    ...defaults.networking.errorBackoffs as number[],
  ]);
  assertEquals([...iterate(backoffsOf(2))], [2]);
  assertEquals(reconnectBackoffOf({}), defaults.watching.reconnectBackoff);
  assertEquals(inactivityTimeoutOf({}), defaults.watching.inactivityTimeout);
  assertEquals(inactivityTimeoutOf({ inactivityTimeout: null }), undefined);
  // The live sections themselves fit, so changes in startup handlers apply at once.
  const api = new ApiClient(new Vault(), defaults);
  defaults.networking.requestTimeout = 7;
  assertEquals(requestTimeoutOf(api.networking), 7);
});

function* iterate<T>(iterator: Iterator<T>): Generator<T> {
  for (let next = iterator.next(); !next.done; next = iterator.next()) yield next.value;
}
