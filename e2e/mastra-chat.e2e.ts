import { randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";
import { e2eAdmin, fakeLlmUrl } from "../playwright.config";
import { startMastraAgent, WEATHER_TOOL } from "../test/framework-agents/mastra/agent";
import { AdminConsolePage } from "./pages/admin-console-page";
import { ChatPage } from "./pages/chat-page";
import { SignInPage } from "./pages/sign-in-page";

// Issue #42: the web chat talking to a real framework agent through a binding. A Mastra agent
// (@mastra/core with @ag-ui/mastra, test/framework-agents/mastra) on the e2e's fake model is
// registered and bound to one user; that user's chat is answered by it, its server-side tool
// included, and a reload shows the conversation Dispatch kept.
test("a user's web chat is answered by a Mastra agent bound to them, its tool included, and kept", async ({ page, browser }, testInfo) => {
  const mastra = await startMastraAgent({ baseUrl: fakeLlmUrl, apiKey: "fake-llm-key", model: "fake-model" });
  try {
    const member = { email: `mastra-user-${randomUUID().slice(0, 8)}@e2e.dispatch`, password: "mastra-user-password" };
    const signIn = new SignInPage(page);
    await signIn.goto("/admin");
    await signIn.signIn(e2eAdmin.email, e2eAdmin.password);
    await expect(page).toHaveURL(/\/admin$/);
    const console = new AdminConsolePage(page);
    await console.trpcMutation("users.create", { email: member.email, password: member.password, role: "user" });
    const { runnerId } = await console.trpcMutation<{ runnerId: string }>("runners.registerAgent", { url: mastra.url, name: `mastra-${randomUUID().slice(0, 8)}` });
    await console.trpcMutation("runners.bind", { runnerId, email: member.email });

    const context = await browser.newContext();
    const chatPage = await context.newPage();
    const memberSignIn = new SignInPage(chatPage);
    await memberSignIn.goto("/chat");
    await memberSignIn.signIn(member.email, member.password);
    await expect(chatPage).toHaveURL(/\/chat\/[0-9a-f-]{36}$/);
    const chat = new ChatPage(chatPage);
    await chat.send("hello mastra");
    await chat.waitForIdle();
    await expect(chat.lastAssistant()).toContainText("hello mastra");
    // The agent's own tool runs in the agent; the chat shows its call and the answer built on it.
    await chat.send(`[[call:${WEATHER_TOOL} {"city":"Paris"}]] the weather`);
    await chat.waitForIdle();
    await expect(chat.lastAssistant()).toContainText("sunny in Paris");
    await expect(chatPage.getByText(WEATHER_TOOL).first()).toBeVisible();
    await testInfo.attach("mastra-chat", { body: await chatPage.screenshot(), contentType: "image/png" });
    // Dispatch kept the thread: the agent was sent it whole on the second turn, and a reload shows it.
    expect(mastra.requests).toHaveLength(2);
    expect(mastra.requests[1]!.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    await chatPage.reload();
    await expect(chat.lastAssistant()).toContainText("sunny in Paris");
    await expect(chatPage.getByText("hello mastra").first()).toBeVisible();
    await context.close();
  } finally {
    await mastra.close();
  }
});
