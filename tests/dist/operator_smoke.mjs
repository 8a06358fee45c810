// An operator module for `kopf run` under Node, against the npm build (copied into the
// package directory, so that it imports the package by its name).
import process from "node:process";
import { kopf } from "@kopf/kopf";

kopf.on.create("kopfexamples", function createFn({ spec, logger }) {
  logger.info(`Handled on Node ${process.version}: ${JSON.stringify(spec)}`);
  return { runtime: "node", version: process.version };
});

kopf.on.delete("kopfexamples", function deleteFn({ logger }) {
  logger.info("Deleted on Node.");
});
