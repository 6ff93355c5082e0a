import "server-only";
import { z } from "zod";

// The data contacts.read returns, read back by the post-processor to build ui_hints.

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
