import { SettingsPage } from "@/components/settings/settings-page";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "@/server/services/users";

export const dynamic = "force-dynamic";

// GET /chat/settings: the signed-in user's preferences (the chat layout checks the session).
export default function Settings() {
  return <SettingsPage password={{ min: PASSWORD_MIN_LENGTH, max: PASSWORD_MAX_LENGTH }} />;
}
