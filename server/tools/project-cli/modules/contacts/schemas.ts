import "server-only";
import { z } from "zod";

// The method's input, built on first use (see ../../module.ts); its data is described in data.ts.

export const contactsReadInput = () =>
  z
    .strictObject({
      query: z.string().trim().min(1).max(100).optional().describe("Text to find in name, email or company (case-insensitive); all contacts when absent"),
      limit: z.number().int().min(1).max(100).optional().describe("Most contacts to return, 1-100; 20 when absent"),
    })
    .describe("Search or list the user's contacts");

export type ContactsReadInput = z.infer<ReturnType<typeof contactsReadInput>>;
