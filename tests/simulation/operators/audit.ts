/**
 * An audit trail: each create-handler run of an audited ConfigMap writes one audit
 * ConfigMap (a generated name, labelled with the object). The client makes it once even if
 * the reply is lost; but a crash after the audit is written and before the handler's
 * success is stored runs the handler again, and a second audit is written: the handler is
 * run at least once, not exactly once.
 */
import { kopf } from "../../../mod.ts";
import { createObject } from "../../../src/client/mod.ts";
import { CONFIGMAPS, ownClient } from "./own_client.ts";

/** The labels of the audited ConfigMaps. */
export const AUDITED_LABELS = { audited: "yes" } as const;

/** The label of an audit that names the object it audits. */
export const AUDIT_OF = "audit-of";

kopf.on.create("configmaps", { labels: AUDITED_LABELS }, async function audit({ name, namespace }) {
  await using api = ownClient();
  await createObject(api, CONFIGMAPS, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { generateName: "audit-", namespace, labels: { [AUDIT_OF]: name } },
    data: { event: "created" },
  });
});
