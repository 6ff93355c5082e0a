import { expect, test } from "@playwright/test";
import { e2eAdmin } from "../playwright.config";
import { pdfBytes } from "../test/documents";
import { ChatPage } from "./pages/chat-page";
import { SignInPage } from "./pages/sign-in-page";

// A document attached in the chat: a chip with its name and size in the composer, the same chip
// in the sent message and again after a reload (history signs its URL afresh).

test("an attached PDF shows as a file chip in the composer, the message and history", async ({ page }) => {
  const signInPage = new SignInPage(page);
  await signInPage.goto();
  await signInPage.signIn(e2eAdmin.email, e2eAdmin.password);
  await expect(page).toHaveURL(/\/chat\/[0-9a-f-]{36}$/);
  const chat = new ChatPage(page);
  await chat.ready();

  const pdf = Buffer.from(pdfBytes("Quarterly revenue rose"));
  await page.getByTestId("attach-input").setInputFiles({ name: "report.pdf", mimeType: "application/pdf", buffer: pdf });
  const attachment = page.getByTestId("composer-attachment");
  await expect(attachment).toHaveAttribute("data-status", "ready");
  await expect(attachment.getByTestId("file-chip")).toContainText("report.pdf");
  await expect(attachment.getByTestId("file-chip")).toContainText(`${pdf.byteLength} B`);

  // A Markdown file the browser gives no type is typed by its extension.
  await page.getByTestId("attach-input").setInputFiles({ name: "notes.md", mimeType: "", buffer: Buffer.from("# Notes\n") });
  await expect(attachment.nth(1)).toHaveAttribute("data-status", "ready");
  await page.getByRole("button", { name: "Remove file notes.md" }).click();
  await expect(attachment).toHaveCount(1);

  await chat.send("Summarise this report");
  const sent = chat.userMessages().last().getByTestId("file-chip");
  await expect(sent).toContainText("report.pdf");
  await chat.waitForIdle();
  await expect(chat.liveTurns().last()).toHaveAttribute("data-status", "completed");

  await page.reload();
  const replayed = chat.view().getByTestId("history-day").getByTestId("file-chip");
  await expect(replayed).toHaveCount(1);
  await expect(replayed).toContainText("report.pdf");
  await expect(replayed).toContainText(`${pdf.byteLength} B`);
  const href = await replayed.getAttribute("href");
  expect((await page.request.get(href!)).status()).toBe(200);
  await page.screenshot({ path: "test-results/chat-file.png" });
});
