"use client";

import Link from "next/link";
import { useDictionary } from "@/components/i18n/use-dictionary";
import { ApprovalPolicySection } from "./approval-policy-section";
import { McpClientsSection } from "./mcp-clients-section";
import { PasswordSection } from "./password-section";
import { PreferencesSection } from "./preferences-section";
import { SchedulesSection } from "./schedules-section";
import { SkillsSection } from "./skills-section";
import { UsageSection } from "./usage-section";
import { WebhooksSection } from "./webhooks-section";

// The user's settings: one section per line, each a self-contained component with its own
// heading, data and saving; the password section takes the server's rule for a password.
const SECTIONS: React.ComponentType[] = [PreferencesSection, ApprovalPolicySection, SkillsSection, SchedulesSection, WebhooksSection, McpClientsSection, UsageSection];

export function SettingsPage({ password }: { password: { min: number; max: number; changed: boolean } }) {
  const t = useDictionary();
  return (
    <div className="chat-scroll">
      <div className="chat-column settings" data-testid="settings">
        <p>
          <Link href="/chat">← {t.settings.back}</Link>
        </p>
        <h1 className="chat-title">{t.settings.title}</h1>
        {SECTIONS.map((Section, i) => (
          <Section key={i} />
        ))}
        <PasswordSection min={password.min} max={password.max} changed={password.changed} />
      </div>
    </div>
  );
}
