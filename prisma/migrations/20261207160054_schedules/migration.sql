-- Scheduled runs (issue #43, docs/schedules.md): one row per schedule; its next due time is a
-- graphile-worker job (dispatch_schedule_fire, job_key schedule:<id>:<due>) added by server/schedules/repository.ts.

-- CreateTable
CREATE TABLE "schedules" (
    "id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "name" TEXT,
    "message" TEXT NOT NULL,
    "cron" TEXT,
    "time_zone" TEXT NOT NULL DEFAULT 'UTC',
    "run_at" TIMESTAMPTZ(3),
    "thread_id" UUID,
    "created_via" TEXT NOT NULL DEFAULT 'session',
    "paused_at" TIMESTAMPTZ(3),
    "next_run_at" TIMESTAMPTZ(3),
    "last_run_at" TIMESTAMPTZ(3),
    "last_run_id" TEXT,
    "last_thread_id" UUID,
    "last_error" TEXT,
    "run_count" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "schedules_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "schedules_user_id_created_at_idx" ON "schedules"("user_id", "created_at");

-- CreateIndex
CREATE INDEX "schedules_next_run_at_idx" ON "schedules"("next_run_at");

-- AddForeignKey
ALTER TABLE "schedules" ADD CONSTRAINT "schedules_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
