import "server-only";
import type { ToolContext } from "../../context";
import { searchContacts } from "./repository";
import type { ContactsReadData } from "./data";
import type { ContactsReadInput } from "./schemas";

const DEFAULT_LIMIT = 20;

export async function readContacts(ctx: ToolContext, input: ContactsReadInput): Promise<ContactsReadData> {
  const query = input.query ?? null;
  const { items, total } = await searchContacts({ ownerId: ctx.userId, query, limit: input.limit ?? DEFAULT_LIMIT }, ctx.db);
  return { query, items, count: items.length, total };
}
