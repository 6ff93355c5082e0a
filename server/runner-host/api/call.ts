import "server-only";
import type { HostApiActionName, HostApiParsedRequest, HostApiResponse, HostApiStreamingAction } from "../../protocols/runner/host-api";
import type { RunSession } from "./session";

/** One authorized, validated host API call, as a handler receives it. */
export type HostCall<A extends HostApiActionName> = {
  session: RunSession;
  params: HostApiParsedRequest<A>;
  /** Aborts when the runner hangs up or the run's deadline passes. */
  signal: AbortSignal;
};

export type JsonHandler<A extends HostApiActionName> = (call: HostCall<A>) => Promise<HostApiResponse<A>>;
export type StreamHandler<A extends HostApiActionName> = (call: HostCall<A>) => AsyncIterable<HostApiResponse<A>>;

export type HostApiHandlers = {
  [A in HostApiActionName]: A extends HostApiStreamingAction ? StreamHandler<A> : JsonHandler<A>;
};
