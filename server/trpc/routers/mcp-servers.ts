import "server-only";
import { z } from "zod";
import { grantMcpServer, listMcpServerViews, refreshMcpServer, registerMcpServer, registerMcpServerSchema, removeMcpServer, revokeMcpGrant } from "../../tools/service/mcp-servers";
import { adminProcedure, createTRPCRouter } from "../init";

// MCP servers as tool sources (docs/mcp.md), for admins: the auth goes in once and never comes back.
const name = z.string().min(1).max(64);

export const mcpServersRouter = createTRPCRouter({
  list: adminProcedure.query(() => listMcpServerViews()),
  register: adminProcedure.input(registerMcpServerSchema).mutation(({ input }) => registerMcpServer(input)),
  refresh: adminProcedure.input(z.object({ name })).mutation(({ input }) => refreshMcpServer(input)),
  remove: adminProcedure.input(z.object({ name })).mutation(({ input }) => removeMcpServer(input)),
  grant: adminProcedure
    .input(z.object({ name, email: z.string().email().optional(), bindingId: z.uuid().optional(), tools: z.array(z.string().min(1).max(128)).max(200).optional() }))
    .mutation(({ input }) => grantMcpServer(input)),
  revoke: adminProcedure.input(z.object({ id: z.uuid() })).mutation(({ input }) => revokeMcpGrant(input)),
});
