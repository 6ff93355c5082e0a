import { SettingsPage } from "@/components/settings/settings-page";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "@/server/accounts/service/users";

export const dynamic = "force-dynamic";

// GET /chat/settings: the signed-in user's preferences (the chat layout checks the session).
// `?password=changed`: where a password change comes back to, signed in again (app/(auth)/actions.ts).
export default async function Settings({ searchParams }: { searchParams: Promise<{ password?: string | string[] }> }) {
  const changed = (await searchParams).password === "changed";
  return <SettingsPage password={{ min: PASSWORD_MIN_LENGTH, max: PASSWORD_MAX_LENGTH, changed }} />;
}
