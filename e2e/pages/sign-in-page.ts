import { expect, type Page } from "@playwright/test";

/** The sign-in page, found by its structure rather than its words: it speaks the browser's language. */
export class SignInPage {
  constructor(private readonly page: Page) {}

  private form() {
    return this.page.locator('form[aria-labelledby="sign-in-title"]');
  }

  async goto(callbackUrl?: string): Promise<void> {
    await this.page.goto(callbackUrl ? `/sign-in?callbackUrl=${encodeURIComponent(callbackUrl)}` : "/sign-in");
    await expect(this.page.locator("#sign-in-title")).toBeVisible();
  }

  async signIn(email: string, password: string): Promise<void> {
    await this.form().locator("#email").fill(email);
    await this.form().locator("#password").fill(password);
    await this.form().locator('button[type="submit"]').click();
  }

  error() {
    return this.page.getByTestId("sign-in-error");
  }
}
