-- CreateTable
CREATE TABLE "mcp_servers" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "auth_sealed" TEXT,
    "timeout_ms" INTEGER NOT NULL DEFAULT 30000,
    "tools" JSONB NOT NULL DEFAULT '[]',
    "tools_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "mcp_servers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "mcp_server_grants" (
    "id" UUID NOT NULL,
    "server_id" UUID NOT NULL,
    "user_id" UUID,
    "binding_id" UUID,
    "tools" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "mcp_server_grants_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "mcp_servers_name_key" ON "mcp_servers"("name");

-- CreateIndex
CREATE INDEX "mcp_server_grants_server_id_idx" ON "mcp_server_grants"("server_id");

-- CreateIndex
CREATE INDEX "mcp_server_grants_user_id_idx" ON "mcp_server_grants"("user_id");

-- CreateIndex
CREATE INDEX "mcp_server_grants_binding_id_idx" ON "mcp_server_grants"("binding_id");

-- AddForeignKey
ALTER TABLE "mcp_server_grants" ADD CONSTRAINT "mcp_server_grants_server_id_fkey" FOREIGN KEY ("server_id") REFERENCES "mcp_servers"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "mcp_server_grants" ADD CONSTRAINT "mcp_server_grants_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "mcp_server_grants" ADD CONSTRAINT "mcp_server_grants_binding_id_fkey" FOREIGN KEY ("binding_id") REFERENCES "agent_bindings"("id") ON DELETE CASCADE ON UPDATE CASCADE;
