-- CreateTable
CREATE TABLE "conversation_summaries" (
    "thread_id" UUID NOT NULL,
    "summary" TEXT NOT NULL,
    "covers_seq" INTEGER NOT NULL,
    "message_count" INTEGER NOT NULL,
    "model" TEXT NOT NULL,
    "input_tokens" INTEGER,
    "output_tokens" INTEGER,
    "refreshed_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "conversation_summaries_pkey" PRIMARY KEY ("thread_id")
);

-- AddForeignKey
ALTER TABLE "conversation_summaries" ADD CONSTRAINT "conversation_summaries_thread_id_fkey" FOREIGN KEY ("thread_id") REFERENCES "threads"("id") ON DELETE CASCADE ON UPDATE CASCADE;
