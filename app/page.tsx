import { redirect } from "next/navigation";
import { getSessionPrincipal } from "@/server/auth/session";

export const dynamic = "force-dynamic";

// GET /: the chat for signed-in users, sign-in for everyone else.
export default async function HomePage() {
  const principal = await getSessionPrincipal();
  redirect(principal ? "/chat" : "/sign-in");
}
