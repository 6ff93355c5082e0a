import { test, type Page } from "@playwright/test";

/** The sizes the UI tests check every screen at (the desktop one is Playwright's Desktop Chrome). */
export const DESKTOP = { width: 1280, height: 720 };
export const PHONE = { width: 390, height: 844 };

/**
 * Takes a full-page screenshot into the test's output and attaches it to the report under `name`,
 * so each screen can be looked at from the report.
 */
export async function attachScreenshot(page: Page, name: string): Promise<void> {
  const path = test.info().outputPath(`${name}.png`);
  await page.screenshot({ path, fullPage: true });
  await test.info().attach(name, { path, contentType: "image/png" });
}

/** Attaches the page at the desktop size and at the phone size (`name-desktop`, `name-phone`), then restores the page's size. */
export async function attachDesktopAndPhone(page: Page, name: string): Promise<void> {
  const before = page.viewportSize();
  await page.setViewportSize(DESKTOP);
  await attachScreenshot(page, `${name}-desktop`);
  await page.setViewportSize(PHONE);
  await attachScreenshot(page, `${name}-phone`);
  if (before) await page.setViewportSize(before);
}
