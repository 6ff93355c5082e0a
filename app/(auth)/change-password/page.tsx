import { redirect } from "next/navigation";
import { getSignedInUser } from "@/server/auth/session";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "@/server/accounts/service/users";
import { ChoosePasswordForm } from "./choose-password-form";

export const dynamic = "force-dynamic";

// GET /change-password: where a user signed in with a one-time password must go first; every
// other page sends them here (through /sign-in), and every API refuses their session until done.
export default async function ChangePasswordPage() {
  const user = await getSignedInUser();
  if (!user) redirect("/sign-in");
  if (!user.mustChangePassword) redirect("/");
  return (
    <main className="page" style={{ maxWidth: 420, paddingTop: "12vh" }}>
      <ChoosePasswordForm email={user.principal.email} min={PASSWORD_MIN_LENGTH} max={PASSWORD_MAX_LENGTH} />
    </main>
  );
}
