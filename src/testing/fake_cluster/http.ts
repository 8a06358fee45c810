/**
 * The HTTP face of the fake API server: each request is read once at the entry (its path,
 * who sends it), held to flow control when the cluster has limits (`flow_control.ts`),
 * authorized, and answered by the route table (`http_routes.ts`), with latency and lost
 * replies injected, every failure a `Status`, and the request logged.
 *
 * @module
 */
import type { HttpRequestInfo } from "../../platform/http_server.ts";
import { impersonate } from "./authentication.ts";
import type { RequestResource } from "./faults.ts";
import type { Call, RouterContext } from "./http_context.ts";
import { failureResponse, LISTED_ITEMS } from "./http_responses.ts";
import { route } from "./http_routes.ts";
import type { FlowOutcome } from "./flow_control.ts";
import { type Attributes, forbidden, type UserInfo } from "./rbac.ts";
import { requestAttributes } from "./request_info.ts";
import { type RequestPath, requestPathOf } from "./request_path.ts";

/** A reply broken before a byte of its body, like a cut line. */
function lostReply(reply: Response): Response {
  return new Response(
    new ReadableStream({ start: (controller) => controller.error(new Error("reply lost")) }),
    { status: reply.status, headers: reply.headers },
  );
}

/** Turns HTTP requests into API calls. */
export class Router {
  constructor(readonly ctx: RouterContext) {}

  /** Answer one request. Never throws: every failure is a `Status`. */
  async handle(request: Request, info?: HttpRequestInfo): Promise<Response> {
    const time = new Date();
    const url = new URL(request.url);
    const noted: Noted = { verb: "" };
    let response: Response;
    let flow: FlowOutcome | undefined;
    try {
      // One reading of the path, for authorization, flow control and routing alike.
      const path = requestPathOf(url);
      const user = this.#identify(request, info);
      const attributes = requestAttributes(request.method, path, url.searchParams, user);
      const serve = () => this.#serve({ request, url, path, user, attributes, noted });
      const flowControl = this.ctx.flowControl;
      if (flowControl === undefined) response = await serve();
      else {
        // As kube-apiserver: after authentication and impersonation, before authorization.
        flow = await flowControl.handle(attributes, url.searchParams, serve);
        response = flow.response;
        if (flow.rejected && attributes.resourceRequest) noted.verb = attributes.verb;
      }
    } catch (error) {
      response = failureResponse(error);
    }
    this.ctx.log({
      method: request.method,
      path: url.pathname,
      query: url.search.replace(/^\?/, ""),
      verb: noted.verb,
      status: response.status,
      time,
      items: LISTED_ITEMS.get(response),
      accept: request.headers.get("accept") ?? undefined,
      ...(flow?.waited !== undefined ? { waited: flow.waited } : {}),
      ...(flow?.rejected ? { throttled: true } : {}),
    });
    return response;
  }

  /** Who the request acts as: authenticated (a 401 otherwise), then impersonated under RBAC. */
  #identify(request: Request, info: HttpRequestInfo | undefined): UserInfo {
    const user = this.ctx.authenticator.authenticate(request, info);
    const authorizer = this.ctx.authorizer;
    if (!authorizer) return user;
    return impersonate(user, request.headers, (a) => authorizer.authorize(a));
  }

  /**
   * The answer to an identified request: delayed by the injected latency (while it holds
   * its seat, as a slow server's requests do), authorized with RBAC (a 403 otherwise),
   * routed, and its reply perhaps lost. Never throws: every failure is a `Status`.
   */
  async #serve(admitted: Admitted): Promise<Response> {
    const { request, url, path, user, attributes, noted } = admitted;
    try {
      const latency = this.ctx.faults.currentLatency;
      if (latency > 0) await new Promise((resolve) => setTimeout(resolve, latency));
      const authorizer = this.ctx.authorizer;
      if (authorizer) {
        const decision = authorizer.authorize(attributes);
        if (!decision.allowed) {
          if (attributes.resourceRequest) noted.verb = attributes.verb;
          throw forbidden(attributes, decision.reason);
        }
      }
      const call: Call = {
        ctx: this.ctx,
        request,
        url,
        path,
        user,
        setVerb: (v, r) => {
          noted.verb = v;
          noted.resource = r;
        },
      };
      const response = await route(call);
      if (response.ok && this.ctx.faults.losesReply(noted.verb, noted.resource)) {
        // The write is done; its reply is lost.
        await response.body?.cancel();
        return lostReply(response);
      }
      return response;
    } catch (error) {
      return failureResponse(error);
    }
  }
}

/** The verb and resource a request turned out to address, for the log and the faults. */
interface Noted {
  verb: string;
  resource?: RequestResource;
}

/** A request once its sender is known. */
interface Admitted {
  readonly request: Request;
  readonly url: URL;
  readonly path: RequestPath;
  readonly user: UserInfo;
  readonly attributes: Attributes;
  readonly noted: Noted;
}
