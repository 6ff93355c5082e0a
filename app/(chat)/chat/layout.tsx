import { redirect } from "next/navigation";
import { getSessionPrincipal } from "@/server/auth/session";
import { TrpcProvider } from "@/components/trpc-provider";
import { ChatShell } from "@/components/chat/chat-shell";
import { THEME_BOOT_SCRIPT } from "@/components/chat/theme";

export const dynamic = "force-dynamic";

export default async function ChatLayout({ children }: { children: React.ReactNode }) {
  const principal = await getSessionPrincipal();
  if (!principal) redirect("/sign-in?callbackUrl=/chat");
  return (
    <>
      {/* Applies the saved theme before first paint, so a dark-mode user never sees a light flash. */}
      <script dangerouslySetInnerHTML={{ __html: THEME_BOOT_SCRIPT }} />
      <TrpcProvider>
        <ChatShell email={principal.email} isAdmin={principal.role === "admin"}>
          {children}
        </ChatShell>
      </TrpcProvider>
    </>
  );
}
