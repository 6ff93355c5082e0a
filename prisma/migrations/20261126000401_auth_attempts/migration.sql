-- CreateTable
CREATE TABLE "auth_attempts" (
    "id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "account" TEXT,
    "address" TEXT,
    "succeeded" BOOLEAN NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "auth_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "auth_attempts_kind_account_created_at_idx" ON "auth_attempts"("kind", "account", "created_at");

-- CreateIndex
CREATE INDEX "auth_attempts_kind_address_created_at_idx" ON "auth_attempts"("kind", "address", "created_at");
