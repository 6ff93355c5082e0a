"use client";
import { DashboardPanel } from "./dashboard-panel";
import { HealthPanel } from "./health-panel";
import { UsersPanel } from "./users-panel";
import { ApiKeysPanel } from "./api-keys-panel";

export function AdminConsole({ currentUserId }: { currentUserId: string }) {
  return (
    <div className="stack">
      <DashboardPanel />
      <HealthPanel />
      <UsersPanel currentUserId={currentUserId} />
      <ApiKeysPanel />
    </div>
  );
}
