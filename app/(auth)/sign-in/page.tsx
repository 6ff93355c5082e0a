import { redirect } from "next/navigation";
import { getSessionPrincipal } from "@/server/auth/session";
import { SignInForm } from "./sign-in-form";

export const dynamic = "force-dynamic";

export default async function SignInPage({ searchParams }: { searchParams: Promise<{ callbackUrl?: string }> }) {
  const { callbackUrl } = await searchParams;
  if (await getSessionPrincipal()) redirect("/");
  return (
    <main className="page" style={{ maxWidth: 420, paddingTop: "12vh" }}>
      <SignInForm callbackUrl={callbackUrl ?? "/"} />
    </main>
  );
}
