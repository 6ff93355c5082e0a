"use client";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { useDictionary } from "../i18n/use-dictionary";
import styles from "./admin.module.css";

const LINKS = [
  { href: "/admin", label: "overview", exact: true },
  { href: "/admin/runs", label: "runs", exact: false },
  { href: "/admin/threads", label: "threads", exact: false },
  { href: "/admin/approvals", label: "approvals", exact: false },
  { href: "/admin/runners", label: "runners", exact: false },
  { href: "/admin/mcp", label: "mcp", exact: false },
  { href: "/admin/webhooks", label: "webhooks", exact: false },
  { href: "/admin/schedules", label: "schedules", exact: false },
  { href: "/admin/knowledge", label: "knowledge", exact: false },
  { href: "/admin/usage", label: "usage", exact: false },
] as const;

export function AdminNav() {
  const pathname = usePathname();
  const t = useDictionary().console.nav;
  return (
    <nav aria-label={t.label} className={styles.nav} data-testid="admin-nav">
      {LINKS.map((link) => {
        const current = link.exact ? pathname === link.href : pathname.startsWith(link.href);
        return (
          <Link key={link.href} href={link.href} aria-current={current ? "page" : undefined}>
            {t[link.label]}
          </Link>
        );
      })}
    </nav>
  );
}
