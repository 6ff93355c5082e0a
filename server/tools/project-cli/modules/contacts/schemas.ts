import "server-only";
import { z } from "zod";

export const contactsReadInput = z
  .strictObject({
    query: z.string().trim().min(1).max(100).optional().describe("Text to find in name, email or company (case-insensitive); all contacts when absent"),
    limit: z.number().int().min(1).max(100).optional().describe("Most contacts to return, 1-100; 20 when absent"),
  })
  .describe("Search or list the user's contacts");

export type ContactsReadInput = z.infer<typeof contactsReadInput>;

export const contactDataSchema = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  company: z.string().nullable(),
  job_title: z.string().nullable(),
  notes: z.string().nullable(),
});

export const contactsReadDataSchema = z.object({
  query: z.string().nullable(),
  items: z.array(contactDataSchema),
  count: z.number(),
  total: z.number(),
});

export type ContactData = z.infer<typeof contactDataSchema>;
export type ContactsReadData = z.infer<typeof contactsReadDataSchema>;
