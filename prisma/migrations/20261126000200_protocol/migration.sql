-- CreateTable
CREATE TABLE "agent_api_sessions" (
    "thread_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "session_id" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "agent_api_sessions_pkey" PRIMARY KEY ("thread_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "agent_api_sessions_user_id_session_id_key" ON "agent_api_sessions"("user_id", "session_id");

-- AddForeignKey
ALTER TABLE "agent_api_sessions" ADD CONSTRAINT "agent_api_sessions_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
