import { randomUUID } from "node:crypto";
import { redirect } from "next/navigation";

export const dynamic = "force-dynamic";

// GET /chat: a new chat gets its id up front, so its URL survives a reload mid-run.
export default function NewChatPage() {
  redirect(`/chat/${randomUUID()}`);
}
