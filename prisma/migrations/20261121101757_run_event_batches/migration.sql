-- The run event log moves from a row per event to a row per written batch (see
-- RunEventBatch in schema.prisma). Existing logs are kept: each run's events become
-- batches of consecutive sequence numbers, text unchanged.

-- CreateTable
CREATE TABLE "run_event_batches" (
    "run_id" UUID NOT NULL,
    "first_seq" INTEGER NOT NULL,
    "last_seq" INTEGER NOT NULL,
    "types" TEXT NOT NULL,
    "events" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "run_event_batches_pkey" PRIMARY KEY ("run_id","first_seq")
);

-- Copy the existing events: one batch per run of consecutive sequence numbers.
INSERT INTO "run_event_batches" ("run_id", "first_seq", "last_seq", "types", "events", "created_at")
SELECT "run_id", min("seq"), max("seq"),
       string_agg("type", ' ' ORDER BY "seq"),
       string_agg("payload"::text, E'\n' ORDER BY "seq"),
       min("created_at")
FROM (SELECT *, "seq" - row_number() OVER (PARTITION BY "run_id" ORDER BY "seq") AS "island" FROM "run_events") e
GROUP BY "run_id", "island";

-- DropForeignKey
ALTER TABLE "run_events" DROP CONSTRAINT "run_events_run_id_fkey";

-- DropTable
DROP TABLE "run_events";

-- AddForeignKey
ALTER TABLE "run_event_batches" ADD CONSTRAINT "run_event_batches_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
