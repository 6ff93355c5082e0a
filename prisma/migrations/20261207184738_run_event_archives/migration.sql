-- CreateTable
CREATE TABLE "run_event_archives" (
    "run_id" UUID NOT NULL,
    "bucket" TEXT,
    "path" TEXT,
    "bytes" INTEGER NOT NULL DEFAULT 0,
    "sha256" TEXT,
    "event_count" INTEGER NOT NULL,
    "last_seq" INTEGER NOT NULL,
    "archived_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expired_at" TIMESTAMP(3),

    CONSTRAINT "run_event_archives_pkey" PRIMARY KEY ("run_id")
);

-- CreateIndex
CREATE INDEX "run_event_archives_archived_at_idx" ON "run_event_archives"("archived_at");

-- AddForeignKey
ALTER TABLE "run_event_archives" ADD CONSTRAINT "run_event_archives_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
