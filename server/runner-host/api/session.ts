import "server-only";
import { CREDENTIAL_ERROR_STATUS } from "../../protocols/runner/host-api";
import type { RunAuthorization } from "../policy";
import { findEndpointBySecretHash, findEndpointRunRow, type EndpointRunRow } from "../repository/runners";
import { hashRunnerSecret } from "../secrets";
import { HostApiFailure, refused } from "./failure";
import { credentialAddress, failuresFrom, refusedCredential } from "../../limits/attempts";

// Who is calling (the runner endpoint its secret names) and which run session the call
// belongs to. The runner's identity comes from its credential only; run_id merely picks one
// of the runs that endpoint was handed, and only while that run is active.

export type RunSession = {
  /** runs.id, what the runner got as ctx.run_id. */
  runId: string;
  endpointId: string;
  runnerId: string;
  userId: string;
  /** The API key the run was started with (none: the browser session): its budgets apply too. */
  apiKeyId: string | null;
  threadId: string;
  bindingId: string | null;
  eventId: string | null;
  authorization: RunAuthorization;
  /** Milliseconds left before the run's deadline, by the database's clock. */
  remainingMs: number;
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const credentialFailure = (message: string) => new HostApiFailure("unauthorized", message, { status: CREDENTIAL_ERROR_STATUS });

/** The endpoint whose secret the request carries; 401 when there is none or it matches nothing. */
export async function authenticateRunner(req: Request): Promise<{ endpointId: string }> {
  const header = req.headers.get("authorization") ?? "";
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw credentialFailure("Send the runner secret as Authorization: Bearer <secret>");
  const endpoint = await findEndpointBySecretHash({ secretHash: hashRunnerSecret(match[1]!) });
  if (!endpoint) {
    // Refused secrets are audited; from an address that keeps failing they are answered rate_limited.
    const held = await refusedCredential({ kind: "runner_secret", address: credentialAddress(req.headers) });
    if (held.seconds > 0) {
      throw new HostApiFailure("rate_limited", `Too many invalid runner secrets ${failuresFrom(held)}: retry in ${held.seconds} s`, { details: { retry_after_ms: held.seconds * 1000 } });
    }
    throw credentialFailure("The runner secret is not valid");
  }
  return { endpointId: endpoint.id };
}

/**
 * The run this endpoint was handed under `runId`, or null when there is none (unknown id,
 * another endpoint's run, a run without authorization). The row is returned whatever its
 * status, so refused calls on an ended run still land in that run's audit.
 */
export async function findEndpointRun({ runId, endpointId }: { runId: string; endpointId: string }): Promise<EndpointRunRow | null> {
  if (!UUID.test(runId)) return null;
  return findEndpointRunRow({ runId, endpointId });
}

/** The active session, or the failure that says why `row` opens nothing. */
export function activeSession(row: EndpointRunRow | null, opts: { runRef: string; endpointId: string }): RunSession {
  if (!row) throw refused(`run_id ${opts.runRef} does not name a run of this runner`);
  if (row.status !== "queued" && row.status !== "running") throw refused(`Run ${row.id} has ended (${row.status}); its run_id opens nothing`, { status: row.status });
  if (row.remainingMs <= 0) throw new HostApiFailure("deadline_exceeded", `Run ${row.id} is past its deadline`);
  return {
    runId: row.id,
    endpointId: opts.endpointId,
    runnerId: row.runner,
    userId: row.userId,
    apiKeyId: row.apiKeyId,
    threadId: row.threadId,
    bindingId: row.bindingId,
    eventId: row.eventId,
    authorization: row.authorization,
    remainingMs: row.remainingMs,
  };
}
