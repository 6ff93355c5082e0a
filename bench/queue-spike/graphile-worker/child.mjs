// One worker instance in its own process, for the recovery measurement: a graphile-worker pool with
// our lease, whose `block` task never returns on a job's first attempt (the executor the parent
// kills with SIGKILL) and completes on a later one (the survivor). It reports to the parent over IPC.
import { run } from "graphile-worker";
import pg from "pg";
import { makeLease } from "./lease.mjs";
import { quietLogger } from "./lib.mjs";

const url = process.argv[2];
const pool = new pg.Pool({ connectionString: url, max: 4 });
pool.on("error", () => {});
pool.on("connect", (client) => client.on("error", () => {}));
const lease = makeLease(pool);
const runner = await run({
  pgPool: pool,
  concurrency: 1,
  noHandleSignals: true,
  logger: quietLogger,
  preset: { plugins: [lease.plugin] },
  taskList: {
    async block(payload, helpers) {
      const { id, attempts } = helpers.job;
      process.send({ type: "start", runId: payload.runId, jobId: id, attempts, at: Date.now() });
      if (attempts === 1) await new Promise(() => {});
      process.send({ type: "done", runId: payload.runId, at: Date.now() });
    },
  },
});
const lockId = await lease.whenRegistered;
process.send({ type: "ready", lockId });
process.on("disconnect", async () => {
  await runner.stop();
  await lease.stop();
  await pool.end();
});
