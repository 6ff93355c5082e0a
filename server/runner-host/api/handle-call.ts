import "server-only";
import { inputIssues } from "../../kernel/input-issues";
import { describeIssues } from "../../protocols/runner/manifest";
import { HOST_API_ACTIONS, isHostApiAction, type HostApiActionName } from "../../protocols/runner/host-api";
import { MAX_API_PAYLOAD_BYTES } from "../policy";
import { apiCallAudit, type ApiCallRecord } from "./audit";
import { callTarget, checkOperation, checkResource } from "./authorize";
import type { HostCall, JsonHandler, StreamHandler } from "./call";
import { HostApiFailure, toHostApiFailure } from "./failure";
import { HOST_API_HANDLERS } from "./handlers";
import { takeRunnerApiToken } from "./rate-limiter";
import { countRefusedCall } from "./refusals";
import { readRequestBody, tooLarge } from "./request-body";
import { failureResponse, ndjsonResponse, okResponse } from "./respond";
import { activeSession, findEndpointRun } from "./session";

// One host API call, checked in a fixed order, each check able to refuse before anything is
// written: credential → run_id → the endpoint's active run → deadline → payload size → rate
// limit → operation → resource → parameters. Then the action's handler, and one audit row
// whatever happened (a call whose credential was refused is counted instead: refusals.ts).
//
// A body larger than the host-wide cap (MAX_API_PAYLOAD_BYTES) is refused while it is being
// read, before its run_id can be known; every smaller body is judged against its run's limit.

type Authorized = { call: HostCall<HostApiActionName>; deadline: AbortSignal; hangUp: AbortController };

async function authorizedCall(req: Request, endpointId: string, action: HostApiActionName, audit: ApiCallRecord): Promise<Authorized> {
  const body = await readRequestBody(req, MAX_API_PAYLOAD_BYTES);
  const runRef = body.json.run_id;
  if (typeof runRef !== "string" || runRef.length === 0) {
    throw new HostApiFailure("invalid_argument", "run_id is required: send the ctx.run_id of the run this call belongs to");
  }
  audit.runRef = runRef;
  const row = await findEndpointRun({ runId: runRef, endpointId });
  if (row) Object.assign(audit, { runId: row.id, runnerId: row.runner });
  const session = activeSession(row, { runRef, endpointId });
  Object.assign(audit, callTarget(action, body.json, session));
  const limit = session.authorization.limits.max_payload_bytes;
  if ((body.declaredBytes ?? 0) > limit || body.bytes > limit) throw tooLarge(Math.max(body.bytes, body.declaredBytes ?? 0), limit);
  await takeRunnerApiToken(`${endpointId}:${session.runId}`, session.authorization.limits.rate_per_minute);
  checkOperation(action, session);
  checkResource(action, body.json, session);
  const parsed = HOST_API_ACTIONS[action].request.safeParse(body.json);
  if (!parsed.success) {
    throw new HostApiFailure("invalid_argument", describeIssues(parsed.error), {
      details: { issues: inputIssues(parsed.error.issues, 20) },
    });
  }
  const deadline = AbortSignal.timeout(Math.max(1, Math.floor(session.remainingMs)));
  // Aborted when the runner stops reading a streamed answer, so the model call stops with it.
  const hangUp = new AbortController();
  return { call: { session, params: parsed.data as never, signal: AbortSignal.any([req.signal, deadline, hangUp.signal]) }, deadline, hangUp };
}

/** Set once a call is authorized: what can stop it early. */
type Stops = { deadline: AbortSignal; hungUp: () => boolean };

/**
 * What to report: the run's deadline stopping the work wins over whatever the abort broke,
 * and a runner that hung up is not answered at all (its audit row says "cancelled").
 */
function failureOf(err: unknown, stops: Stops | null, action: string, audit: ApiCallRecord): HostApiFailure {
  const callersFault = err instanceof HostApiFailure && err.status < 500;
  if (stops?.deadline.aborted && !callersFault) return new HostApiFailure("deadline_exceeded", `The run reached its deadline during ${action}`);
  if (stops?.hungUp() && !callersFault) return new HostApiFailure("runtime_error", "The runner hung up", { details: { cancelled: true } });
  return toHostApiFailure(err, { action, runId: audit.runId });
}

async function answer(req: Request, endpointId: string, name: string, audit: ApiCallRecord, started: number): Promise<Response> {
  let stops: Stops | null = null;
  const finish = (result: string) => apiCallAudit().record({ ...audit, result, latencyMs: performance.now() - started });
  const auditResult = (failure: HostApiFailure) => (failure.details.cancelled === true ? "cancelled" : failure.code);
  try {
    if (!isHostApiAction(name)) throw new HostApiFailure("not_found", `${name} is not a host API action`);
    const authorized = await authorizedCall(req, endpointId, name, audit);
    stops = { deadline: authorized.deadline, hungUp: () => req.signal.aborted || authorized.hangUp.signal.aborted };
    const callStops = stops;
    if (HOST_API_ACTIONS[name].streaming) {
      const lines = (HOST_API_HANDLERS[name] as StreamHandler<HostApiActionName>)(authorized.call)[Symbol.asyncIterator]();
      // The first line decides the answer: a failure before it is an ordinary JSON error.
      const first = await lines.next();
      if (first.done) throw new HostApiFailure("runtime_error", `${name} produced no output`);
      return ndjsonResponse({
        first: first.value,
        lines,
        toFailure: (err) => failureOf(err, callStops, name, audit),
        onCancel: () => authorized.hangUp.abort(),
        onEnd: finish,
      });
    }
    const data = await (HOST_API_HANDLERS[name] as JsonHandler<HostApiActionName>)(authorized.call);
    await finish("ok");
    return okResponse(data);
  } catch (err) {
    const failure = failureOf(err, stops, name, audit);
    void finish(auditResult(failure));
    return failureResponse(failure);
  }
}

type CallTarget = { group: string; action: string };

const auditOf = (target: CallTarget): ApiCallRecord => ({
  runId: null,
  runRef: null,
  runnerId: null,
  action: `${target.group}/${target.action}`.slice(0, 100),
  resource: null,
  scope: null,
  result: "",
  latencyMs: 0,
});

/** POST /api/v1/runner-api/{group}/{action} from the runner endpoint the edge authenticated. */
export async function handleHostApiCall(req: Request, endpointId: string, target: CallTarget): Promise<Response> {
  return answer(req, endpointId, `${target.group}/${target.action}`, auditOf(target), performance.now());
}

/**
 * The answer to a call refused before it reached the host API (its credential): counted, not
 * audited, since nobody it could be attributed to made it (refusals.ts).
 */
export async function refuseHostApiCall(err: unknown, target: CallTarget): Promise<Response> {
  const failure = toHostApiFailure(err, { action: `${target.group}/${target.action}` });
  countRefusedCall(failure.code);
  return failureResponse(failure);
}
