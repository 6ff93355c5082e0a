-- CreateTable
CREATE TABLE "runner_tool_hand_overs" (
    "id" BIGSERIAL NOT NULL,
    "run_id" UUID NOT NULL,
    "call" JSONB NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "runner_tool_hand_overs_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "runner_tool_hand_overs_run_id_id_idx" ON "runner_tool_hand_overs"("run_id", "id");

-- AddForeignKey
ALTER TABLE "runner_tool_hand_overs" ADD CONSTRAINT "runner_tool_hand_overs_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
