-- CreateTable
CREATE TABLE "thread_states" (
    "thread_id" UUID NOT NULL,
    "state" JSONB NOT NULL,
    "run_id" UUID,
    "updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "thread_states_pkey" PRIMARY KEY ("thread_id")
);

-- AddForeignKey
ALTER TABLE "thread_states" ADD CONSTRAINT "thread_states_thread_id_fkey" FOREIGN KEY ("thread_id") REFERENCES "threads"("id") ON DELETE CASCADE ON UPDATE CASCADE;
