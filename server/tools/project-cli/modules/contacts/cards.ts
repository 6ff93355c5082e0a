import "server-only";
import { z } from "zod";
import { body, caption, clip, countCaption, short, SHORT, title } from "@/server/ui-schema/compile";
import type { Translations } from "@/server/ui-schema/messages";
import { MAX_CHILDREN, type UiNodeInput } from "@/server/ui-schema/schema";
import { card, hintKind, hintText } from "../../module";

// The contacts card: a search's results or the whole list, drawn with contact nodes.

const contactHintSchema = z
  .strictObject({
    id: hintText().optional().describe("Contact id"),
    name: hintText().describe("Display name"),
    email: hintText().optional().describe("Email address"),
    phone: hintText().optional().describe("Phone number"),
    company: hintText().optional().describe("Organisation"),
    jobTitle: hintText().optional().describe("Role at the organisation"),
  })
  .describe("One contact as the contacts handler returned it");

const contactsListHintSchema = z
  .strictObject({
    kind: hintKind("contacts.list"),
    query: hintText().optional().describe("Search text, when contacts.read searched"),
    contacts: z.array(contactHintSchema).describe("Contacts found, in display order; may be empty"),
    total: z.number().int().min(0).optional().describe("Matches in total, when more exist than were returned"),
  })
  .describe("contacts.read: search results or the contact list");

type ContactHint = z.infer<typeof contactHintSchema>;

type Words = {
  contactsTitle: string;
  contactsMatching: (query: string) => string;
  contactsCount: (n: number) => string;
  noContacts: string;
  noContactsMatching: (query: string) => string;
};

const words: Translations<Words> = {
  en: {
    contactsTitle: "Contacts",
    contactsMatching: (query) => `Contacts matching “${query}”`,
    contactsCount: (n) => (n === 1 ? "1 contact" : `${n} contacts`),
    noContacts: "No contacts yet.",
    noContactsMatching: (query) => `No contacts match “${query}”.`,
  },
  zh: {
    contactsTitle: "联系人",
    contactsMatching: (query) => `匹配“${query}”的联系人`,
    contactsCount: (n) => `${n} 位联系人`,
    noContacts: "还没有联系人。",
    noContactsMatching: (query) => `没有匹配“${query}”的联系人。`,
  },
};

function contactNode(contact: ContactHint): UiNodeInput {
  return {
    type: "contact",
    id: short(contact.id),
    name: clip(contact.name, SHORT),
    email: short(contact.email),
    phone: short(contact.phone),
    company: short(contact.company),
    jobTitle: short(contact.jobTitle),
  };
}

export const contactsCards = [
  card(words, {
    schema: contactsListHintSchema,
    status: () => "info",
    build: (hints, m, common) => {
      const query = hints.query ? clip(hints.query, 80) : undefined;
      const nodes: UiNodeInput[] = [title(query ? m.contactsMatching(query) : m.contactsTitle)];
      if (hints.contacts.length === 0) {
        nodes.push(body(query ? m.noContactsMatching(query) : m.noContacts));
        return nodes;
      }
      const total = Math.max(hints.total ?? 0, hints.contacts.length);
      nodes.push(caption(countCaption(hints.contacts.length, total, m.contactsCount, common)));
      nodes.push({ type: "list", label: m.contactsTitle, items: hints.contacts.slice(0, MAX_CHILDREN).map(contactNode) });
      return nodes;
    },
  }),
];
