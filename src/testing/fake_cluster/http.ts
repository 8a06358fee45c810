/**
 * The HTTP face of the fake API server: each request is read once at the entry (its path,
 * who sends it), authorized, and answered by the route table (`http_routes.ts`), with
 * latency and lost replies injected, every failure a `Status`, and the request logged.
 *
 * @module
 */
import type { HttpRequestInfo } from "../../platform/http_server.ts";
import { impersonate } from "./authentication.ts";
import type { RequestResource } from "./faults.ts";
import type { Call, RouterContext } from "./http_context.ts";
import { failureResponse, LISTED_ITEMS } from "./http_responses.ts";
import { route } from "./http_routes.ts";
import { forbidden, type UserInfo } from "./rbac.ts";
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
    let verb = "";
    let resource: RequestResource | undefined;
    let response: Response;
    try {
      // One reading of the path, for authorization and routing alike.
      const path = requestPathOf(url);
      const user = await this.#admit(request, info, path, url, (v) => (verb = v));
      const call: Call = {
        ctx: this.ctx,
        request,
        url,
        path,
        user,
        setVerb: (v, r) => {
          verb = v;
          resource = r;
        },
      };
      response = await route(call);
      if (response.ok && this.ctx.faults.losesReply(verb, resource)) {
        // The write is done; its reply is lost.
        await response.body?.cancel();
        response = lostReply(response);
      }
    } catch (error) {
      response = failureResponse(error);
    }
    this.ctx.log({
      method: request.method,
      path: url.pathname,
      query: url.search.replace(/^\?/, ""),
      verb,
      status: response.status,
      time,
      items: LISTED_ITEMS.get(response),
      accept: request.headers.get("accept") ?? undefined,
    });
    return response;
  }

  /**
   * Who the request acts as, once authenticated, delayed by the injected latency, and
   * authorized (with RBAC): a 401 or 403 otherwise.
   */
  async #admit(
    request: Request,
    info: HttpRequestInfo | undefined,
    path: RequestPath,
    url: URL,
    refused: (verb: string) => void,
  ): Promise<UserInfo> {
    let user = this.ctx.authenticator.authenticate(request, info);
    const latency = this.ctx.faults.currentLatency;
    if (latency > 0) await new Promise((resolve) => setTimeout(resolve, latency));
    const authorizer = this.ctx.authorizer;
    if (!authorizer) return user;
    user = impersonate(user, request.headers, (a) => authorizer.authorize(a));
    const attributes = requestAttributes(request.method, path, url.searchParams, user);
    const decision = authorizer.authorize(attributes);
    if (!decision.allowed) {
      if (attributes.resourceRequest) refused(attributes.verb);
      throw forbidden(attributes, decision.reason);
    }
    return user;
  }
}
