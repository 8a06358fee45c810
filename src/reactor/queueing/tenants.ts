/**
 * The tenants of the queueing: whose objects take turns within a lane, by
 * `settings.queueing.fairness` (read when an object's work begins, so that a changed
 * setting applies to the objects that come next). An operator's function that fails puts
 * the object with the objects of no tenant, and is reported once, not once per object.
 *
 * @module
 */

import type { RawBody } from "../../structs/bodies.ts";
import { summarizeError } from "../../structs/log_formats.ts";
import type { Logger } from "../../structs/loggers.ts";
import type { Resource } from "../../structs/resources.ts";
import { type QueueingSettings, tenantOf } from "../../settings/queueing_settings.ts";
import { describeObject } from "./workers.ts";

/** The tenant of each object; see the module docs. */
export class Tenants {
  readonly #settings: () => Pick<QueueingSettings, "fairness"> | undefined;
  readonly #logger: Logger;
  #reported = false;

  /** Tenants by the settings (the namespace without them), failures told to the logger. */
  constructor(settings: () => Pick<QueueingSettings, "fairness"> | undefined, logger: Logger) {
    this.#settings = settings;
    this.#logger = logger;
  }

  /** The object's tenant: `""` for none (see `tenantOf`). */
  of(resource: Resource, body: RawBody): string {
    try {
      return tenantOf(this.#settings()?.fairness ?? "namespace", body);
    } catch (error) {
      if (!this.#reported) {
        this.#reported = true;
        this.#logger.error(
          `settings.queueing.fairness failed for ${describeObject(resource, body)}: ` +
            `${summarizeError(error)}; such objects are queued as of no tenant (reported ` +
            "once). Make the function return a string for every object.",
        );
      }
      return "";
    }
  }
}
