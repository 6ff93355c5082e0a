import "server-only";
import { z } from "zod";
import { disconnectClient, listConnectedClients } from "../../oauth/service";
import { createTRPCRouter, protectedProcedure } from "../init";

// The MCP clients a user connected with OAuth (docs/mcp.md#oauth), in the chat settings: each
// grant still live, and a way to end it (its tokens stop working at once).
export const mcpClientsRouter = createTRPCRouter({
  list: protectedProcedure.query(({ ctx }) => listConnectedClients({ userId: ctx.principal.userId })),
  disconnect: protectedProcedure.input(z.object({ grantId: z.uuid() })).mutation(({ ctx, input }) => disconnectClient({ userId: ctx.principal.userId, grantId: input.grantId })),
});
