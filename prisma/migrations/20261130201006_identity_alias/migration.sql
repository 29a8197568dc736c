-- CreateTable
CREATE TABLE "identity_alias" (
    "field" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "dead_letter_id" BIGINT NOT NULL,
    "replaced_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "identity_alias_pkey" PRIMARY KEY ("value","field","dead_letter_id")
);

-- CreateIndex
CREATE INDEX "identity_alias_dead_letter_idx" ON "identity_alias"("dead_letter_id");

-- AddForeignKey
ALTER TABLE "identity_alias" ADD CONSTRAINT "identity_alias_dead_letter_id_fkey" FOREIGN KEY ("dead_letter_id") REFERENCES "dead_letter"("id") ON DELETE CASCADE ON UPDATE CASCADE;
