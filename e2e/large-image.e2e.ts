import { expect, test } from "@playwright/test";
import { e2eAdmin } from "../playwright.config";
import { pngBytes } from "../test/images";
import { ChatPage } from "./pages/chat-page";
import { SignInPage } from "./pages/sign-in-page";

// An image above what hosts such as Vercel let through a request body (4.5 MB) goes from the
// browser straight to storage through a presigned PUT, and reaches the model like any other.

test("a large image is uploaded through a presigned PUT, sent, and shown in the message", async ({ page }) => {
  const signInPage = new SignInPage(page);
  await signInPage.goto();
  await signInPage.signIn(e2eAdmin.email, e2eAdmin.password);
  await expect(page).toHaveURL(/\/chat\/[0-9a-f-]{36}$/);
  const chat = new ChatPage(page);
  await chat.ready();

  const uploads: string[] = [];
  page.on("request", (req) => {
    if (/\/api\/v1\/agent\/attachments|\/storage\/v1\/object\/upload\//.test(req.url())) uploads.push(`${req.method()} ${new URL(req.url()).pathname}`);
  });
  // A valid PNG padded past 4.5 MB (bytes after its end are not read).
  const big = Buffer.concat([Buffer.from(pngBytes(11)), Buffer.alloc(5 * 1024 * 1024)]);
  await page.getByTestId("attach-input").setInputFiles({ name: "big.png", mimeType: "image/png", buffer: big });
  const attachment = page.getByTestId("composer-attachment");
  await expect(attachment).toHaveAttribute("data-status", "ready");
  expect(uploads.map((u) => u.replace(/\/upload\/sign\/.*/, "/upload/sign/…"))).toEqual(["POST /api/v1/agent/attachments/presign", "PUT /storage/v1/object/upload/sign/…"]);

  await chat.send("What is in this big picture?");
  const sent = chat.userMessages().last().getByTestId("user-message-image");
  await expect(sent).toHaveCount(1);
  await expect.poll(() => sent.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
  await chat.waitForIdle();
  await expect(chat.liveTurns().last()).toHaveAttribute("data-status", "completed");
});
