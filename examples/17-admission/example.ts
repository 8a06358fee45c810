/**
 * Admission control: validating and mutating webhooks served by the operator itself.
 * The webhook server makes a self-signed certificate at startup; the operator writes
 * the `auto.kopf.dev` webhook configurations (validating and mutating) pointing at it,
 * with its CA, so that the cluster calls it for every KopfExample being written.
 *
 *   kopf run examples/17-admission/example.ts --verbose
 *   kubectl apply -f examples/obj.yaml
 *
 * The cluster must reach the server: a cluster on this host does (the default server
 * listens on 127.0.0.1); for K3d or Minikube use the servers named after them, or
 * `kopf.WebhookAutoServer` to detect which one fits.
 */
import { kopf } from "../../mod.ts";

kopf.on.startup(function configure({ settings }) {
  // A local HTTPS endpoint with a generated certificate, on any free port (the URL is
  // logged and written into the managed configurations). Other choices:
  //   new kopf.WebhookServer({ port: 9443, certfile: "cert.pem", pkeyfile: "key.pem" })
  //   new kopf.WebhookK3dServer({ cadump: "ca.pem" })    // K3d/K3s, also inside a VM
  //   new kopf.WebhookMinikubeServer({ port: 9443 })     // Minikube, also inside a VM
  //   new kopf.WebhookAutoServer()                       // whichever of them fits
  settings.admission.server = new kopf.WebhookServer({ port: 0 });
  settings.admission.managed = "auto.kopf.dev";
});

/** Who is calling: a verified client certificate, if the caller presented one. */
kopf.on.validate("kex", function whoCalls({ sslpeer, warnings }) {
  const name = sslpeer?.commonName;
  warnings.push(typeof name === "string" ? `The caller is ${name}.` : "The caller is anonymous.");
});

/** A field value the operator refuses, unless the request is a dry run. */
kopf.on.validate("kex", function notWrong({ spec, dryrun }) {
  if (!dryrun && spec.field === "wrong") {
    throw new kopf.AdmissionError("The field must not be 'wrong': change it.");
  }
});

/** Another refused value, found by a filter, denied with a custom status code. */
kopf.on.validate(
  "kex",
  { field: "spec.field", value: "forbidden" },
  function notForbidden() {
    throw new kopf.AdmissionError("The field must not be 'forbidden' either.", { code: 422 });
  },
);

/** Objects with a label get a value injected into their spec. */
kopf.on.mutate("kex", { labels: { somelabel: "somevalue" } }, function inject({ patch }) {
  patch.spec.injected = 123;
});
