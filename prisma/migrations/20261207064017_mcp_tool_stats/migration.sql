-- CreateTable
CREATE TABLE "mcp_tool_stats" (
    "server_id" UUID NOT NULL,
    "tool" TEXT NOT NULL,
    "calls" INTEGER NOT NULL DEFAULT 0,
    "failures" INTEGER NOT NULL DEFAULT 0,
    "total_ms" BIGINT NOT NULL DEFAULT 0,
    "last_ms" INTEGER NOT NULL DEFAULT 0,
    "last_call_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_error" TEXT,
    "last_error_at" TIMESTAMP(3),

    CONSTRAINT "mcp_tool_stats_pkey" PRIMARY KEY ("server_id","tool")
);

-- AddForeignKey
ALTER TABLE "mcp_tool_stats" ADD CONSTRAINT "mcp_tool_stats_server_id_fkey" FOREIGN KEY ("server_id") REFERENCES "mcp_servers"("id") ON DELETE CASCADE ON UPDATE CASCADE;
