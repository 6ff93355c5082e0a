-- AlterTable
ALTER TABLE "runs" ADD COLUMN     "authorization" JSONB,
ADD COLUMN     "binding_id" UUID,
ADD COLUMN     "event_id" TEXT;

-- AlterTable
ALTER TABLE "threads" ADD COLUMN     "last_event_seq" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "runner_endpoints" (
    "id" UUID NOT NULL,
    "base_url" TEXT NOT NULL,
    "secret_sealed" TEXT NOT NULL,
    "secret_hash" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'unknown',
    "last_error" TEXT,
    "warnings" JSONB NOT NULL DEFAULT '[]',
    "refreshed_at" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "runner_endpoints_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "agent_runners" (
    "id" TEXT NOT NULL,
    "endpoint_id" UUID,
    "name" TEXT NOT NULL,
    "manifest" JSONB NOT NULL,
    "available" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "agent_runners_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "agent_bindings" (
    "id" UUID NOT NULL,
    "runner_id" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "user_id" UUID,
    "thread_id" UUID,
    "event_types" TEXT[] DEFAULT ARRAY['message.received']::TEXT[],
    "config" JSONB NOT NULL DEFAULT '{}',
    "policy" JSONB NOT NULL DEFAULT '{}',
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "agent_bindings_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "agent_events" (
    "id" TEXT NOT NULL,
    "thread_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "seq" INTEGER NOT NULL,
    "event_type" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "source_event_type" TEXT,
    "data" JSONB NOT NULL DEFAULT '{}',
    "raw_ref" JSONB,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "agent_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "artifacts" (
    "id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "thread_id" UUID,
    "run_id" UUID,
    "runner_id" TEXT,
    "attachment_id" UUID,
    "name" TEXT,
    "mime_type" TEXT NOT NULL,
    "size" INTEGER NOT NULL,
    "sha256" TEXT NOT NULL,
    "driver" TEXT NOT NULL,
    "bucket" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "expires_at" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "artifacts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "runner_state" (
    "key_hash" TEXT NOT NULL,
    "binding_id" UUID NOT NULL,
    "scope" TEXT NOT NULL,
    "scope_id" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "value" JSONB NOT NULL,
    "size" INTEGER NOT NULL,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "runner_state_pkey" PRIMARY KEY ("key_hash")
);

-- CreateTable
CREATE TABLE "runner_storage" (
    "area" TEXT NOT NULL,
    "owner_key" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "value" BYTEA NOT NULL,
    "size" INTEGER NOT NULL,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "runner_storage_pkey" PRIMARY KEY ("area","owner_key","key")
);

-- CreateTable
CREATE TABLE "runner_results" (
    "run_id" UUID NOT NULL,
    "idx" INTEGER NOT NULL,
    "sequence" INTEGER,
    "type" TEXT NOT NULL,
    "disposition" TEXT NOT NULL,
    "detail" TEXT,
    "data" JSON NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "runner_results_pkey" PRIMARY KEY ("run_id","idx")
);

-- CreateTable
CREATE TABLE "runner_api_calls" (
    "id" BIGSERIAL NOT NULL,
    "run_id" UUID,
    "run_ref" TEXT,
    "runner_id" TEXT,
    "action" TEXT NOT NULL,
    "resource" TEXT,
    "scope" TEXT,
    "result" TEXT NOT NULL,
    "latency_ms" INTEGER NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "runner_api_calls_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "knowledge_bases" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "knowledge_bases_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "knowledge_documents" (
    "id" UUID NOT NULL,
    "knowledge_base_id" UUID NOT NULL,
    "title" TEXT NOT NULL,
    "mime_type" TEXT NOT NULL,
    "size" INTEGER NOT NULL,
    "sha256" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "knowledge_documents_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "knowledge_chunks" (
    "id" UUID NOT NULL,
    "knowledge_base_id" UUID NOT NULL,
    "document_id" UUID NOT NULL,
    "ord" INTEGER NOT NULL,
    "content" TEXT NOT NULL,
    "tsv" tsvector,
    "embedding" DOUBLE PRECISION[],
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "knowledge_chunks_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "runner_endpoints_base_url_key" ON "runner_endpoints"("base_url");

-- CreateIndex
CREATE UNIQUE INDEX "runner_endpoints_secret_hash_key" ON "runner_endpoints"("secret_hash");

-- CreateIndex
CREATE INDEX "agent_runners_endpoint_id_idx" ON "agent_runners"("endpoint_id");

-- CreateIndex
CREATE INDEX "agent_bindings_scope_user_id_idx" ON "agent_bindings"("scope", "user_id");

-- CreateIndex
CREATE INDEX "agent_bindings_scope_thread_id_idx" ON "agent_bindings"("scope", "thread_id");

-- CreateIndex
CREATE INDEX "agent_bindings_runner_id_idx" ON "agent_bindings"("runner_id");

-- CreateIndex
CREATE UNIQUE INDEX "agent_events_thread_id_seq_key" ON "agent_events"("thread_id", "seq");

-- CreateIndex
CREATE INDEX "artifacts_thread_id_created_at_idx" ON "artifacts"("thread_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "artifacts_run_id_attachment_id_key" ON "artifacts"("run_id", "attachment_id");

-- CreateIndex
CREATE INDEX "runner_state_binding_id_scope_scope_id_idx" ON "runner_state"("binding_id", "scope", "scope_id");

-- CreateIndex
CREATE INDEX "runner_api_calls_run_id_id_idx" ON "runner_api_calls"("run_id", "id");

-- CreateIndex
CREATE INDEX "runner_api_calls_created_at_idx" ON "runner_api_calls"("created_at");

-- CreateIndex
CREATE UNIQUE INDEX "knowledge_bases_name_key" ON "knowledge_bases"("name");

-- CreateIndex
CREATE INDEX "knowledge_documents_knowledge_base_id_created_at_idx" ON "knowledge_documents"("knowledge_base_id", "created_at");

-- CreateIndex
CREATE INDEX "knowledge_chunks_tsv_idx" ON "knowledge_chunks" USING GIN ("tsv");

-- CreateIndex
CREATE INDEX "knowledge_chunks_knowledge_base_id_idx" ON "knowledge_chunks"("knowledge_base_id");

-- CreateIndex
CREATE UNIQUE INDEX "knowledge_chunks_document_id_ord_key" ON "knowledge_chunks"("document_id", "ord");

-- CreateIndex
CREATE INDEX "messages_run_id_idx" ON "messages"("run_id");

-- CreateIndex
CREATE INDEX "runs_user_id_created_at_idx" ON "runs"("user_id", "created_at");

-- CreateIndex
CREATE INDEX "threads_updated_at_id_idx" ON "threads"("updated_at", "id");

-- AddForeignKey
ALTER TABLE "runs" ADD CONSTRAINT "runs_binding_id_fkey" FOREIGN KEY ("binding_id") REFERENCES "agent_bindings"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "agent_runners" ADD CONSTRAINT "agent_runners_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "runner_endpoints"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "agent_bindings" ADD CONSTRAINT "agent_bindings_runner_id_fkey" FOREIGN KEY ("runner_id") REFERENCES "agent_runners"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "agent_bindings" ADD CONSTRAINT "agent_bindings_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "agent_bindings" ADD CONSTRAINT "agent_bindings_thread_id_fkey" FOREIGN KEY ("thread_id") REFERENCES "threads"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "agent_events" ADD CONSTRAINT "agent_events_thread_id_fkey" FOREIGN KEY ("thread_id") REFERENCES "threads"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "artifacts" ADD CONSTRAINT "artifacts_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "runner_state" ADD CONSTRAINT "runner_state_binding_id_fkey" FOREIGN KEY ("binding_id") REFERENCES "agent_bindings"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "runner_results" ADD CONSTRAINT "runner_results_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "runner_api_calls" ADD CONSTRAINT "runner_api_calls_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "knowledge_documents" ADD CONSTRAINT "knowledge_documents_knowledge_base_id_fkey" FOREIGN KEY ("knowledge_base_id") REFERENCES "knowledge_bases"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "knowledge_chunks" ADD CONSTRAINT "knowledge_chunks_knowledge_base_id_fkey" FOREIGN KEY ("knowledge_base_id") REFERENCES "knowledge_bases"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "knowledge_chunks" ADD CONSTRAINT "knowledge_chunks_document_id_fkey" FOREIGN KEY ("document_id") REFERENCES "knowledge_documents"("id") ON DELETE CASCADE ON UPDATE CASCADE;
