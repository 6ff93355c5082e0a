-- CreateTable
CREATE TABLE "run_attempts" (
    "run_id" UUID NOT NULL,
    "attempt" INTEGER NOT NULL,
    "instance" TEXT NOT NULL,
    "started_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "ended_at" TIMESTAMP(3),
    "end_reason" TEXT,

    CONSTRAINT "run_attempts_pkey" PRIMARY KEY ("run_id","attempt")
);

-- AddForeignKey
ALTER TABLE "run_attempts" ADD CONSTRAINT "run_attempts_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
