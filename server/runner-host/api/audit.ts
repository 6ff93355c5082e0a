import "server-only";
import { getPool } from "../../db";
import { logger } from "../../logger";

// The audit of host API calls (runner_api_calls). Writes are group-committed: a call's row
// joins whatever batch is waiting while one insert is in flight, so a busy runner costs one
// insert per batch rather than per call, and an idle one waits for a single insert. Success
// paths await their row before answering; refusals do not wait.

export type ApiCallRecord = {
  runId: string | null;
  /** The run_id as the caller sent it (cut to 200 characters). */
  runRef: string | null;
  runnerId: string | null;
  action: string;
  resource: string | null;
  scope: string | null;
  /** ok, or the AgentAPIError code. */
  result: string;
  latencyMs: number;
};

type Pending = { record: ApiCallRecord; done: () => void };

const MAX_BATCH = 500;
const cut = (s: string | null, n: number) => (s === null ? null : s.slice(0, n));

async function insertRecords(records: ApiCallRecord[]): Promise<void> {
  await getPool().query(
    `insert into runner_api_calls (run_id, run_ref, runner_id, action, resource, scope, result, latency_ms)
     select * from unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::int[])`,
    [
      records.map((r) => r.runId),
      records.map((r) => cut(r.runRef, 200)),
      records.map((r) => r.runnerId),
      records.map((r) => r.action),
      records.map((r) => cut(r.resource, 300)),
      records.map((r) => cut(r.scope, 200)),
      records.map((r) => r.result),
      records.map((r) => Math.max(0, Math.round(r.latencyMs))),
    ],
  );
}

export class ApiCallAuditWriter {
  private pending: Pending[] = [];
  private draining: Promise<void> | null = null;

  constructor(private readonly insert: (records: ApiCallRecord[]) => Promise<void> = insertRecords) {}

  /** Resolves once the row is stored (or, if the database refused it, once that is logged). */
  record(record: ApiCallRecord): Promise<void> {
    return new Promise((done) => {
      this.pending.push({ record, done });
      this.draining ??= this.drain();
    });
  }

  private async drain(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0, MAX_BATCH);
      await this.write(batch.map((p) => p.record));
      for (const p of batch) p.done();
    }
    this.draining = null;
  }

  private async write(records: ApiCallRecord[]): Promise<void> {
    try {
      await this.insert(records);
    } catch (err) {
      if (records.length === 1) {
        logger.error({ err, action: records[0]!.action, runId: records[0]!.runId }, "could not write a runner API audit row");
        return;
      }
      // One bad row (its run deleted meanwhile) must not cost the others theirs.
      for (const r of records) await this.write([r]);
    }
  }
}

const globalForAudit = globalThis as unknown as { dispatchRunnerApiAudit?: ApiCallAuditWriter };

export function apiCallAudit(): ApiCallAuditWriter {
  globalForAudit.dispatchRunnerApiAudit ??= new ApiCallAuditWriter();
  return globalForAudit.dispatchRunnerApiAudit;
}

export type ApiCallRow = {
  id: string;
  runRef: string | null;
  runnerId: string | null;
  action: string;
  resource: string | null;
  scope: string | null;
  result: string;
  latencyMs: number;
  createdAt: Date;
};

/** A run's host API calls, oldest first (at most `limit`), for the admin run page. */
export async function listRunApiCalls({ runId, limit = 500 }: { runId: string; limit?: number }): Promise<{ calls: ApiCallRow[]; truncated: boolean }> {
  const { rows } = await getPool().query<ApiCallRow>(
    `select id::text as id, run_ref as "runRef", runner_id as "runnerId", action, resource, scope, result, latency_ms as "latencyMs", created_at as "createdAt"
     from runner_api_calls where run_id = $1::uuid order by id limit $2`,
    [runId, limit + 1],
  );
  return { calls: rows.slice(0, limit), truncated: rows.length > limit };
}
