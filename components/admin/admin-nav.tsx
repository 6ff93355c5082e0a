"use client";
import Link from "next/link";
import { usePathname } from "next/navigation";
import styles from "./admin.module.css";

const LINKS = [
  { href: "/admin", label: "Overview", exact: true },
  { href: "/admin/runs", label: "Runs", exact: false },
  { href: "/admin/threads", label: "Threads", exact: false },
  { href: "/admin/runners", label: "Runners", exact: false },
  { href: "/admin/knowledge", label: "Knowledge", exact: false },
  { href: "/admin/usage", label: "Usage", exact: false },
] as const;

export function AdminNav() {
  const pathname = usePathname();
  return (
    <nav aria-label="Admin console" className={styles.nav} data-testid="admin-nav">
      {LINKS.map((link) => {
        const current = link.exact ? pathname === link.href : pathname.startsWith(link.href);
        return (
          <Link key={link.href} href={link.href} aria-current={current ? "page" : undefined}>
            {link.label}
          </Link>
        );
      })}
    </nav>
  );
}
