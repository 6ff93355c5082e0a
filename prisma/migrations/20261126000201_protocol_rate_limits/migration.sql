-- CreateTable
CREATE TABLE "runner_api_rate_buckets" (
    "key" TEXT NOT NULL,
    "tokens" DOUBLE PRECISION NOT NULL,
    "allowed" BOOLEAN NOT NULL DEFAULT true,
    "refreshed_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "runner_api_rate_buckets_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "runner_api_rate_buckets_refreshed_at_idx" ON "runner_api_rate_buckets"("refreshed_at");
