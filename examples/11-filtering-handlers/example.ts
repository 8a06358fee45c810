/**
 * Filters: which handlers run for an object depends on its labels, annotations and
 * fields, or on any callback. With examples/obj.yaml (label `somelabel: somevalue`,
 * annotation `someannotation: somevalue`, `spec.field: value`), every handler whose
 * message says "satisfied", "matching", "present" or "absent" runs; the others do not.
 * The daemon at the end runs only while `spec.field` is `value`: the patch below stops it.
 *
 *   kopf run examples/11-filtering-handlers/example.ts --verbose
 *   kubectl apply -f examples/obj.yaml
 *   kubectl patch kex kopf-example-1 --type merge -p '{"spec":{"field":"changed"}}'
 */
import { kopf } from "../../mod.ts";
import type { Spec } from "../../mod.ts";

function sayYes(value: unknown, { spec }: { spec: Spec }): boolean {
  return value === "somevalue" && spec.field !== undefined;
}

function sayNo(value: unknown, { spec }: { spec: Spec }): boolean {
  return value === "somevalue" && spec.field === "not-this-value-for-sure";
}

kopf.on.create(
  "kopfexamples",
  { labels: { somelabel: "somevalue" } },
  function createWithLabelsMatching({ logger }) {
    logger.info("Label is matching.");
  },
);

kopf.on.create(
  "kopfexamples",
  { labels: { somelabel: kopf.PRESENT } },
  function createWithLabelsPresent({ logger }) {
    logger.info("Label is present.");
  },
);

kopf.on.create(
  "kopfexamples",
  { labels: { nonexistent: kopf.ABSENT } },
  function createWithLabelsAbsent({ logger }) {
    logger.info("Label is absent.");
  },
);

kopf.on.create(
  "kopfexamples",
  { labels: { somelabel: sayYes } },
  function createWithLabelsCallbackMatching({ logger }) {
    logger.info("Label callback matching.");
  },
);

kopf.on.create(
  "kopfexamples",
  { annotations: { someannotation: "somevalue" } },
  function createWithAnnotationsMatching({ logger }) {
    logger.info("Annotation is matching.");
  },
);

kopf.on.create(
  "kopfexamples",
  { annotations: { someannotation: kopf.PRESENT } },
  function createWithAnnotationsPresent({ logger }) {
    logger.info("Annotation is present.");
  },
);

kopf.on.create(
  "kopfexamples",
  { annotations: { nonexistent: kopf.ABSENT } },
  function createWithAnnotationsAbsent({ logger }) {
    logger.info("Annotation is absent.");
  },
);

kopf.on.create(
  "kopfexamples",
  { annotations: { someannotation: sayNo } },
  function createWithAnnotationsCallbackMatching({ logger }) {
    logger.info("Annotation callback mismatch.");
  },
);

kopf.on.create(
  "kopfexamples",
  { when: () => true },
  function createWithFilterSatisfied({ logger }) {
    logger.info("Filter satisfied.");
  },
);

kopf.on.create(
  "kopfexamples",
  { when: () => false },
  function createWithFilterNotSatisfied({ logger }) {
    logger.info("Filter not satisfied.");
  },
);

kopf.on.create(
  "kopfexamples",
  { field: "spec.field", value: "value" },
  function createWithFieldValueSatisfied({ logger }) {
    logger.info("Field value is satisfied.");
  },
);

kopf.on.create(
  "kopfexamples",
  { field: "spec.field", value: "something-else" },
  function createWithFieldValueNotSatisfied({ logger }) {
    logger.info("Field value is not satisfied.");
  },
);

kopf.on.create(
  "kopfexamples",
  { field: "spec.field", value: kopf.PRESENT },
  function createWithFieldPresenceSatisfied({ logger }) {
    logger.info("Field presence is satisfied.");
  },
);

kopf.on.create(
  "kopfexamples",
  { field: "spec.inexistent", value: kopf.PRESENT },
  function createWithFieldPresenceNotSatisfied({ logger }) {
    logger.info("Field presence is not satisfied.");
  },
);

kopf.on.update(
  "kopfexamples",
  { field: "spec.field", old: "value", new: "changed" },
  function updateWithFieldChangeSatisfied({ logger }) {
    logger.info("Field change is satisfied.");
  },
);

kopf.daemon(
  "kopfexamples",
  { field: "spec.field", value: "value" },
  async function daemonWithField({ stopped, logger }) {
    while (!stopped.isSet) {
      logger.info("Field daemon is satisfied.");
      await stopped.wait(1);
    }
    logger.info(`Field daemon is stopped: ${stopped.reason}.`);
  },
);
