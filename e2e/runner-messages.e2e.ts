import { randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";
import { e2eAdmin } from "../playwright.config";
import { doneNote, PROGRESS_NOTES_RUNNER_ID, progressNote, startProgressNotesRunner } from "../sdk/runner/examples/progress-notes";
import { AdminConsolePage } from "./pages/admin-console-page";
import { ChatPage } from "./pages/chat-page";
import { SignInPage } from "./pages/sign-in-page";

// A runner's platform actions in the web chat: the SDK's progress-notes example posts a note while
// it works and edits it when done; the user's chat shows the edited note live and after a reload.

test("a runner's note appears in the chat and is edited in place, live and in the history", async ({ page, browser, baseURL }) => {
  const secret = `e2e-runner-${randomUUID()}`;
  const runner = await startProgressNotesRunner({ secret, hostUrl: baseURL! });
  try {
    const member = { email: `notes-user-${randomUUID().slice(0, 8)}@e2e.dispatch`, password: "notes-user-password" };
    const signIn = new SignInPage(page);
    await signIn.goto("/admin");
    await signIn.signIn(e2eAdmin.email, e2eAdmin.password);
    await expect(page).toHaveURL(/\/admin$/);
    const admin = new AdminConsolePage(page);
    await admin.trpcMutation("users.create", { email: member.email, password: member.password, role: "user" });
    await admin.trpcMutation("runners.register", { url: runner.url, secret });
    await admin.trpcMutation("runners.bind", { runnerId: PROGRESS_NOTES_RUNNER_ID, email: member.email, policy: { platform_api: { actions: ["message.send", "message.edit"] } } });

    const memberContext = await browser.newContext();
    const memberPage = await memberContext.newPage();
    await new SignInPage(memberPage).goto("/chat");
    await new SignInPage(memberPage).signIn(member.email, member.password);
    const chat = new ChatPage(memberPage);
    await expect(memberPage).toHaveURL(/\/chat\/[0-9a-f-]{36}$/);
    await chat.send("plan the offsite");
    await chat.waitForIdle();
    await expect(chat.assistantMessages().filter({ hasText: doneNote("plan the offsite") })).toHaveCount(1);
    await expect(chat.assistantMessages().filter({ hasText: progressNote("plan the offsite") })).toHaveCount(0);
    await memberPage.screenshot({ path: test.info().outputPath("runner-note-live.png"), fullPage: true });

    await memberPage.reload();
    await expect(chat.assistantMessages().filter({ hasText: doneNote("plan the offsite") })).toHaveCount(1);
    await expect(chat.userMessages().filter({ hasText: "plan the offsite" })).toHaveCount(1);
    await memberContext.close();
  } finally {
    await runner.close();
  }
});
