-- CreateTable
CREATE TABLE "tool_effects" (
    "user_id" UUID NOT NULL,
    "run_id" TEXT NOT NULL,
    "tool_call_id" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "input_hash" TEXT NOT NULL,
    "output" JSON,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "tool_effects_pkey" PRIMARY KEY ("user_id","run_id","tool_call_id")
);

-- AddForeignKey
ALTER TABLE "tool_effects" ADD CONSTRAINT "tool_effects_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
