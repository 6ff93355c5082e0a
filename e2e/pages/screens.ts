import { test, type Page } from "@playwright/test";

/** The phone size the UI tests check every screen at. */
export const PHONE = { width: 390, height: 844 };

/**
 * Takes a full-page screenshot into the test's output and attaches it to the report under `name`,
 * so each new screen can be looked at, at desktop and phone sizes, from the report.
 */
export async function attachScreenshot(page: Page, name: string): Promise<void> {
  const path = test.info().outputPath(`${name}.png`);
  await page.screenshot({ path, fullPage: true });
  await test.info().attach(name, { path, contentType: "image/png" });
}

/** Shoots the page at the desktop size, then at the phone size, and restores the desktop size. */
export async function attachDesktopAndPhone(page: Page, name: string): Promise<void> {
  const desktop = page.viewportSize();
  await attachScreenshot(page, `${name}-desktop`);
  await page.setViewportSize(PHONE);
  await attachScreenshot(page, `${name}-phone`);
  if (desktop) await page.setViewportSize(desktop);
}
