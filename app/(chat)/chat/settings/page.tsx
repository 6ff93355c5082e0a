import { SettingsPage } from "@/components/settings/settings-page";

export const dynamic = "force-dynamic";

// GET /chat/settings: the signed-in user's preferences (the chat layout checks the session).
export default function Settings() {
  return <SettingsPage />;
}
