import "server-only";
import { hintsFrom, method, optionalText, type ModuleDefinition } from "../../module";
import { contactsCards } from "./cards";
import { contactsReadDataSchema } from "./data";
import { readContacts } from "./read";
import { contactsReadInput } from "./schemas";

export const contactsModule: ModuleDefinition = {
  name: "contacts",
  subject: "contacts",
  summary: "The user's address book: search contacts by name, email or company, e.g. to find whom to invite.",
  methods: {
    read: method({
      kind: "read",
      input: contactsReadInput,
      handler: readContacts,
      hints: hintsFrom(contactsReadDataSchema, (d) => ({
        kind: "contacts.list",
        query: optionalText(d.query),
        contacts: d.items.map((c) => ({
          id: c.id,
          name: c.name,
          email: optionalText(c.email),
          phone: optionalText(c.phone),
          company: optionalText(c.company),
          jobTitle: optionalText(c.job_title),
        })),
        total: d.total,
      })),
      example: { query: "ana", limit: 5 },
      pitfalls: ["An empty result means no contact matched: ask the user rather than guessing an email."],
    }),
  },
  cards: contactsCards,
  rules: ["Read before you write: look contacts up with contacts.read before inviting someone, and never invent ids."],
};
