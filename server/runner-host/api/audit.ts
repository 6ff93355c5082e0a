import "server-only";
import { logger } from "../../logger";
import { insertApiCalls, type ApiCallInsert } from "../repository/audit";

// The audit of host API calls (runner_api_calls). Writes are group-committed: a call's row
// joins whatever batch is waiting while one insert is in flight, so a busy runner costs one
// insert per batch rather than per call, and an idle one waits for a single insert. Success
// paths await their row before answering; refusals do not wait.

export type ApiCallRecord = ApiCallInsert;

type Pending = { record: ApiCallRecord; done: () => void };

const MAX_BATCH = 500;

export class ApiCallAuditWriter {
  private pending: Pending[] = [];
  private draining: Promise<void> | null = null;

  constructor(private readonly insert: (records: ApiCallRecord[]) => Promise<void> = insertApiCalls) {}

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
