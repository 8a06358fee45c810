/**
 * The package's version, from `deno.json`: what `kopf --version` reports and what the
 * Dockerfile recipe of `kopf manifests` compiles in.
 *
 * @module
 */
import denoConfig from "../../deno.json" with { type: "json" };

/** The version reported by `kopf --version`: the package's own, from `deno.json`. */
export const VERSION: string = denoConfig.version;
