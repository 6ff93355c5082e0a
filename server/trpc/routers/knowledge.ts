import "server-only";
import { z } from "zod";
import { adminProcedure, createTRPCRouter } from "../init";
import { createKnowledgeBase, createKnowledgeBaseInput, deleteKnowledgeBase, getKnowledgeBase, listKnowledgeBases } from "../../knowledge/service/knowledge-bases";
import { deleteDocument, listDocuments } from "../../knowledge/service/documents";
import { retrieveKnowledge, retrieveKnowledgeInput } from "../../knowledge/service/retrieve";

// Knowledge bases for the admin console. Documents are uploaded through
// POST /api/v1/admin/knowledge/{kbId}/documents (multipart), not here: see that route.

const kbId = z.string().uuid();

export const knowledgeRouter = createTRPCRouter({
  list: adminProcedure.query(() => listKnowledgeBases()),
  get: adminProcedure.input(z.object({ id: kbId })).query(({ input }) => getKnowledgeBase(input)),
  create: adminProcedure.input(createKnowledgeBaseInput).mutation(({ input }) => createKnowledgeBase(input)),
  delete: adminProcedure.input(z.object({ id: kbId })).mutation(({ input }) => deleteKnowledgeBase(input)),
  documents: adminProcedure.input(z.object({ kbId })).query(({ input }) => listDocuments(input)),
  deleteDocument: adminProcedure.input(z.object({ kbId, id: z.string().uuid() })).mutation(({ input }) => deleteDocument(input)),
  // The console's "test search": exactly what a runner's knowledge/retrieve answers.
  search: adminProcedure.input(retrieveKnowledgeInput).query(({ input }) => retrieveKnowledge(input)),
});
