import { randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";
import { e2eAdmin, FAKE_REASONER } from "../playwright.config";
import { startTicketsServer } from "../test/mcp-servers";
import { AdminConsolePage } from "./pages/admin-console-page";
import { ChatPage } from "./pages/chat-page";
import { SignInPage } from "./pages/sign-in-page";

// The console's MCP servers page: a registered server (the tests' tickets server, on loopback) with
// its tools, kinds and hints, its grant, and, once the agent has called a tool from the chat, that
// tool's calls and the server's last call.

test("the MCP servers page shows a server's tools, grants, health and calls per tool", async ({ page }) => {
  const token = `e2e-${randomUUID()}`;
  const tickets = await startTicketsServer({ token });
  const name = `desk_${randomUUID().slice(0, 6)}`;
  try {
    const signIn = new SignInPage(page);
    await signIn.goto();
    await signIn.signIn(e2eAdmin.email, e2eAdmin.password);
    await expect(page).toHaveURL(/\/chat\/[0-9a-f-]{36}$/);
    const admin = new AdminConsolePage(page);
    await admin.trpcMutation("mcpServers.register", { name, url: tickets.url, bearerToken: token });
    await admin.trpcMutation("mcpServers.grant", { name, email: e2eAdmin.email });

    await page.goto("/admin/mcp");
    const server = page.getByTestId("mcp-server").filter({ hasText: name });
    await expect(server.getByTestId("mcp-health")).toHaveText("not called yet");
    await expect(server.getByTestId("mcp-grants")).toContainText(e2eAdmin.email);
    const find = server.getByTestId("mcp-tool").filter({ hasText: "find_ticket" });
    await expect(find).toContainText("read");
    await expect(find).toContainText("readOnly: true");
    await expect(server).not.toContainText(token);

    // The agent calls the tool from the chat (the fake model follows the [[tool:…]] it is given).
    await page.goto("/chat");
    const chat = new ChatPage(page);
    await page.getByTestId("model-picker").locator("select").selectOption(FAKE_REASONER);
    await chat.send(`[[tool:${name}.find_ticket {"id":"T-5"}]] look it up`);
    await chat.waitForIdle();

    await page.goto("/admin/mcp");
    await expect(find.locator("td").nth(3)).toHaveText("1");
    await expect(server.getByTestId("mcp-health")).toContainText("last call");
  } finally {
    await tickets.stop();
  }
});
