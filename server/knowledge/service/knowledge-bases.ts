import "server-only";
import { z } from "zod";
import { AppError } from "../../kernel/errors";
import { parseInput } from "../input";
import { deleteKnowledgeBaseRow, insertKnowledgeBase, selectKnowledgeBases, type KnowledgeBaseRow } from "../repository/knowledge-bases";

export type KnowledgeBase = KnowledgeBaseRow;

export const knowledgeBaseIdSchema = z.string().uuid("Knowledge base ids are UUIDs");

export const createKnowledgeBaseInput = z.object({
  name: z.string().trim().min(1, "Give the knowledge base a name").max(100, "Names are at most 100 characters"),
  description: z.string().trim().max(1000, "Descriptions are at most 1000 characters").default(""),
});

export async function createKnowledgeBase(raw: z.input<typeof createKnowledgeBaseInput>): Promise<KnowledgeBase> {
  const input = parseInput(createKnowledgeBaseInput, raw);
  const created = await insertKnowledgeBase(input);
  if (!created) throw new AppError("CONFLICT", `A knowledge base named "${input.name}" already exists. Pick another name.`);
  return created;
}

const listInput = z.object({ ids: z.array(knowledgeBaseIdSchema).max(500).optional() });

/** Every knowledge base with its document and chunk counts, by name; only `ids` when given. */
export async function listKnowledgeBases(raw: z.input<typeof listInput> = {}): Promise<KnowledgeBase[]> {
  const { ids } = parseInput(listInput, raw);
  if (ids?.length === 0) return [];
  return selectKnowledgeBases({ ids });
}

export async function getKnowledgeBase(raw: { id: string }): Promise<KnowledgeBase> {
  const { id } = parseInput(z.object({ id: knowledgeBaseIdSchema }), raw);
  const [kb] = await selectKnowledgeBases({ ids: [id] });
  if (!kb) throw new AppError("NOT_FOUND", `Knowledge base ${id} does not exist`);
  return kb;
}

/** Deletes the knowledge base with all its documents and chunks. */
export async function deleteKnowledgeBase(raw: { id: string }): Promise<{ id: string }> {
  const { id } = parseInput(z.object({ id: knowledgeBaseIdSchema }), raw);
  if (!(await deleteKnowledgeBaseRow({ id }))) throw new AppError("NOT_FOUND", `Knowledge base ${id} does not exist`);
  return { id };
}
