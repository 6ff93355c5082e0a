-- AG-UI's Stop across instances (server/runs/departures.ts): a run whose requester left, until a
-- client re-attaches, its grace ends (it is cancelled) or a next message supersedes it.
-- CreateTable
CREATE TABLE "run_departures" (
    "run_id" UUID NOT NULL,
    "left_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "run_departures_pkey" PRIMARY KEY ("run_id")
);

-- AddForeignKey
ALTER TABLE "run_departures" ADD CONSTRAINT "run_departures_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
