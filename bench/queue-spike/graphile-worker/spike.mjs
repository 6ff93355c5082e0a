// Spike: graphile-worker as the job engine of durable runs (issue #25), measured on Dispatch's run
// shape against the same run driven without an engine. Prints markdown tables; exits non-zero when
// a correctness claim fails (a lost or repeated run, an overlap within a key, a job that survives a
// rolled-back accept or a cancel). See README.md.
//   node spike.mjs [--runs=2000] [--trials=12]
import { createHarness } from "./harness.mjs";
import { loadAverage } from "./lib.mjs";
import { recoveryPhase } from "./phases/recovery.mjs";
import { cancelPhase, handBackPhase, serializationPhase, transactionalPhase } from "./phases/semantics.mjs";
import { serverlessPhase } from "./phases/serverless.mjs";
import { acceptCostPhase, idlePhase, throughputPhase } from "./phases/throughput.mjs";
import { report } from "./report.mjs";

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, "").split("=")));
const h = await createHarness({ runs: Number(args.get("runs") ?? 2000), trials: Number(args.get("trials") ?? 12) });

let exitCode = 0;
try {
  console.error(`load average before: ${loadAverage()}`);
  // A fresh cluster and a cold process run the first phase slower, whichever it is: not reported.
  await throughputPhase(h, "warm-up", { useEngine: false, total: h.N / 2 });
  const r = {};
  r.bare = await throughputPhase(h, "bare limit (no engine)", { useEngine: false });
  r.plain = await throughputPhase(h, "graphile-worker", { useEngine: true });
  r.serial = await throughputPhase(h, "graphile-worker, queue_name = thread", { useEngine: true, serial: true });
  r.batched = await throughputPhase(h, "graphile-worker, localQueue + batched completion", { useEngine: true, localQueue: true });
  r.rawInsert = await throughputPhase(h, "the same, the accept inserting the job row itself (no add_job)", { useEngine: true, localQueue: true, raw: true });
  // The machine is shared: the limit measured again after the engine shows how far it drifted.
  r.bareAgain = await throughputPhase(h, "bare limit, again", { useEngine: false });
  r.acceptCost = await acceptCostPhase(h);
  r.idle = await idlePhase(h);
  r.serialization = await serializationPhase(h);
  r.serializationBatched = await serializationPhase(h, { localQueue: true });
  r.transactional = await transactionalPhase(h);
  r.cancel = await cancelPhase(h);
  r.serverless = await serverlessPhase(h);
  r.handBack = await handBackPhase(h);
  r.recovery = await recoveryPhase(h);
  console.log(report(h, r));
  console.log(`\nload average after: ${loadAverage()}`);
} catch (error) {
  console.error(error);
  exitCode = 1;
} finally {
  await h.close();
}
if (h.failures.length > 0) {
  console.error(`${h.failures.length} correctness check(s) failed`);
  exitCode = 1;
}
process.exit(exitCode);
