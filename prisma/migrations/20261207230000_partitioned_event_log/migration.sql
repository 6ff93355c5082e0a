-- The event log (run_event_batches) becomes a table partitioned by RANGE on its run's creation
-- time, one partition per calendar month, plus a DEFAULT partition so that no insert ever fails
-- for want of one (docs/event-log-lifecycle.md "Partitions"). run_created_at is a copy of
-- runs.created_at written by every insert: a run has one creation time, so the primary key
-- (run_id, first_seq, run_created_at) is exactly as unique as (run_id, first_seq) was, and a run's
-- whole log lives in one partition. Retention then drops a month whose runs are all past it.
--
-- PostgreSQL cannot partition a table in place: the rows are copied into the new table and the old
-- one dropped, in this migration's transaction (writers wait for it; the copy is one pass over
-- the log). schema.prisma describes the parent table; the partitions are this file's and
-- server/run-archive/repository/partitions.ts's, which Prisma does not model.

ALTER TABLE "run_event_batches" RENAME TO "run_event_batches_unpartitioned";
ALTER TABLE "run_event_batches_unpartitioned" RENAME CONSTRAINT "run_event_batches_pkey" TO "run_event_batches_unpartitioned_pkey";
ALTER TABLE "run_event_batches_unpartitioned" DROP CONSTRAINT "run_event_batches_run_id_fkey";

CREATE TABLE "run_event_batches" (
    "run_id" UUID NOT NULL,
    "first_seq" INTEGER NOT NULL,
    "last_seq" INTEGER NOT NULL,
    "types" TEXT NOT NULL,
    "events" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "run_created_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "run_event_batches_pkey" PRIMARY KEY ("run_id","first_seq","run_created_at")
) PARTITION BY RANGE ("run_created_at");

ALTER TABLE "run_event_batches" ADD CONSTRAINT "run_event_batches_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "run_event_batches_default" PARTITION OF "run_event_batches" DEFAULT;

-- A partition for every month from the oldest run with events to two months ahead (the upkeep
-- keeps two months ahead from here on). Bounds are in the clock runs.created_at is written in.
DO $$
DECLARE
  v_month TIMESTAMP(3);
  v_last TIMESTAMP(3) := date_trunc('month', localtimestamp) + interval '2 months';
BEGIN
  SELECT date_trunc('month', least(min(r.created_at), localtimestamp)) INTO v_month
    FROM "run_event_batches_unpartitioned" b JOIN "runs" r ON r.id = b.run_id;
  v_month := coalesce(v_month, date_trunc('month', localtimestamp));
  WHILE v_month <= v_last LOOP
    EXECUTE format('CREATE TABLE %I PARTITION OF "run_event_batches" FOR VALUES FROM (%L) TO (%L)',
      'run_event_batches_' || to_char(v_month, 'YYYY_MM'), v_month, v_month + interval '1 month');
    v_month := v_month + interval '1 month';
  END LOOP;
END $$;

-- Every row, with its run's creation time (the foreign key kept every row's run).
INSERT INTO "run_event_batches" ("run_id", "first_seq", "last_seq", "types", "events", "created_at", "run_created_at")
SELECT b."run_id", b."first_seq", b."last_seq", b."types", b."events", b."created_at", r."created_at"
FROM "run_event_batches_unpartitioned" b JOIN "runs" r ON r."id" = b."run_id";

DROP TABLE "run_event_batches_unpartitioned";
