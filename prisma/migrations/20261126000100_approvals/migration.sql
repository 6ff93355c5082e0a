-- AlterTable
ALTER TABLE "agent_bindings" ADD COLUMN     "auto_approve" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "api_keys" ADD COLUMN     "auto_approve" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "runs" ADD COLUMN     "approval_policy" TEXT;

-- AlterTable
ALTER TABLE "users" ADD COLUMN     "approval_policy" TEXT NOT NULL DEFAULT 'always';

-- CreateTable
CREATE TABLE "approvals" (
    "id" UUID NOT NULL,
    "run_id" UUID NOT NULL,
    "thread_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "tool_call_id" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "input" JSONB NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "policy" TEXT NOT NULL,
    "decided_by" UUID,
    "decided_as_admin" BOOLEAN NOT NULL DEFAULT false,
    "decided_at" TIMESTAMP(3),
    "reason" TEXT,
    "edited_input" JSONB,
    "expires_at" TIMESTAMP(3) NOT NULL,
    "resolved_run_id" UUID,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "approvals_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "approvals_thread_id_resolved_run_id_idx" ON "approvals"("thread_id", "resolved_run_id");

-- CreateIndex
CREATE INDEX "approvals_user_id_status_idx" ON "approvals"("user_id", "status");

-- CreateIndex
CREATE INDEX "approvals_status_created_at_idx" ON "approvals"("status", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "approvals_run_id_tool_call_id_key" ON "approvals"("run_id", "tool_call_id");

-- AddForeignKey
ALTER TABLE "approvals" ADD CONSTRAINT "approvals_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "approvals" ADD CONSTRAINT "approvals_thread_id_fkey" FOREIGN KEY ("thread_id") REFERENCES "threads"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "approvals" ADD CONSTRAINT "approvals_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
