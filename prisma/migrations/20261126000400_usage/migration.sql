-- dispatch_accept_run (sql/functions/dispatch_accept_run.sql) now writes runs.api_key_id and checks the
-- budgets of dispatch_run_limits (sql/functions/dispatch_run_limits.sql) before it writes anything.

-- AlterTable
ALTER TABLE "runs" ADD COLUMN     "api_key_id" UUID,
ADD COLUMN     "tool_calls" INTEGER;

-- CreateTable
CREATE TABLE "usage_daily" (
    "day" DATE NOT NULL,
    "user_id" UUID NOT NULL,
    "api_key_id" UUID NOT NULL,
    "runner" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "runs" INTEGER NOT NULL DEFAULT 0,
    "failed_runs" INTEGER NOT NULL DEFAULT 0,
    "runs_without_usage" INTEGER NOT NULL DEFAULT 0,
    "input_tokens" BIGINT,
    "output_tokens" BIGINT,
    "total_tokens" BIGINT,
    "cached_input_tokens" BIGINT,
    "reasoning_tokens" BIGINT,
    "tool_calls" INTEGER NOT NULL DEFAULT 0,
    "duration_ms" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "usage_daily_pkey" PRIMARY KEY ("day","user_id","api_key_id","runner","model")
);

-- CreateTable
CREATE TABLE "usage_limits" (
    "subject" TEXT NOT NULL,
    "subject_id" UUID NOT NULL,
    "tokens_per_day" BIGINT,
    "runs_per_minute" INTEGER,
    "concurrent_runs" INTEGER,
    "updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "usage_limits_pkey" PRIMARY KEY ("subject","subject_id")
);

-- CreateIndex
CREATE INDEX "usage_daily_user_id_day_idx" ON "usage_daily"("user_id", "day");

-- CreateIndex
CREATE INDEX "runs_api_key_id_created_at_idx" ON "runs"("api_key_id", "created_at");
