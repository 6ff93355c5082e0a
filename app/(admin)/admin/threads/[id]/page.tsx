import { notFound } from "next/navigation";
import { z } from "zod";
import { ThreadDetailView } from "@/components/admin/thread-detail";

export const dynamic = "force-dynamic";

export default async function AdminThreadPage({ params }: { params: Promise<{ id: string }> }) {
  const id = z.uuid().safeParse((await params).id);
  if (!id.success) notFound();
  return <ThreadDetailView id={id.data} />;
}
