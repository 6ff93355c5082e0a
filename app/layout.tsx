import type { Metadata, Viewport } from "next";
import { GeistSans } from "geist/font/sans";
import { GeistMono } from "geist/font/mono";
import { I18nProvider } from "@/components/i18n/i18n-provider";
import { requestLocale, requestTimeZone } from "@/components/i18n/request-locale";
import { THEME_BOOT_SCRIPT } from "@/components/chat/theme";
import "./globals.css";

export const metadata: Metadata = {
  title: "Dispatch",
  description: "A self-hostable agent runtime",
  icons: { icon: "/icon.svg" },
};

export const viewport: Viewport = { width: "device-width", initialScale: 1 };

export default async function RootLayout({ children }: { children: React.ReactNode }) {
  const [locale, zone] = await Promise.all([requestLocale(), requestTimeZone()]);
  return (
    <html lang={locale} className={`${GeistSans.variable} ${GeistMono.variable}`} suppressHydrationWarning>
      <body>
        {/* Applies the saved theme (chat and console share it) before first paint: no light flash for a dark-mode user. */}
        <script dangerouslySetInnerHTML={{ __html: THEME_BOOT_SCRIPT }} />
        <I18nProvider locale={locale} timeZone={zone.timeZone} chosenTimeZone={zone.chosen}>
          {children}
        </I18nProvider>
      </body>
    </html>
  );
}
