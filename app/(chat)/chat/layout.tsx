import { redirect } from "next/navigation";
import { getSessionPrincipal } from "@/server/auth/session";
import { TrpcProvider } from "@/components/trpc-provider";
import { ChatShell } from "@/components/chat/chat-shell";

export const dynamic = "force-dynamic";

export default async function ChatLayout({ children }: { children: React.ReactNode }) {
  const principal = await getSessionPrincipal();
  if (!principal) redirect("/sign-in?callbackUrl=/chat");
  return (
    <TrpcProvider>
      <ChatShell email={principal.email} isAdmin={principal.role === "admin"}>
        {children}
      </ChatShell>
    </TrpcProvider>
  );
}
