import { notFound } from "next/navigation";
import { z } from "zod";
import { RunDetailView } from "@/components/admin/run-detail";

export const dynamic = "force-dynamic";

export default async function AdminRunPage({ params }: { params: Promise<{ id: string }> }) {
  const id = z.uuid().safeParse((await params).id);
  if (!id.success) notFound();
  return <RunDetailView id={id.data} />;
}
