-- CreateIndex
CREATE INDEX "auth_attempts_kind_created_at_idx" ON "auth_attempts"("kind", "created_at");
