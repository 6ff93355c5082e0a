import { notFound } from "next/navigation";
import { z } from "zod";
import { KnowledgeBaseDetail } from "@/components/admin/knowledge-base-detail";

export const dynamic = "force-dynamic";

export default async function AdminKnowledgeBasePage({ params }: { params: Promise<{ id: string }> }) {
  const id = z.uuid().safeParse((await params).id);
  if (!id.success) notFound();
  return <KnowledgeBaseDetail id={id.data} />;
}
