import { redirect } from "next/navigation";
import { getSignedInUser } from "@/server/auth/session";
import { SignInForm } from "./sign-in-form";

export const dynamic = "force-dynamic";

export default async function SignInPage({ searchParams }: { searchParams: Promise<{ callbackUrl?: string }> }) {
  const { callbackUrl } = await searchParams;
  const user = await getSignedInUser();
  if (user) redirect(user.mustChangePassword ? "/change-password" : "/");
  return (
    <main className="page" style={{ maxWidth: 420, paddingTop: "12vh" }}>
      <SignInForm callbackUrl={callbackUrl ?? "/"} />
    </main>
  );
}
