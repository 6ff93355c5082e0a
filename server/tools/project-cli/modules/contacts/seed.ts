import "server-only";
import { insertMissingContacts, type NewContact } from "./repository";

// A small address book so a fresh account has someone to look up and invite. Kept apart from
// the handlers: it writes through the app's pool, not a tool call's connection.

const DEMO_CONTACTS: NewContact[] = [
  { name: "Ana Souza", email: "ana.souza@example.com", phone: "+55 11 91234-5678", company: "Lumen Labs", job_title: "Product Manager", notes: "Prefers morning meetings" },
  { name: "Ben Carter", email: "ben.carter@example.com", phone: "+1 415 555 0142", company: "Northwind", job_title: "Engineering Lead", notes: null },
  { name: "Chen Wei", email: "chen.wei@example.com", phone: "+86 138 0013 8000", company: "Lumen Labs", job_title: "Designer", notes: null },
  { name: "Diana Okafor", email: "diana.okafor@example.com", phone: "+44 20 7946 0958", company: "Fabrikam", job_title: "Account Executive", notes: "Met at the Lisbon conference" },
  { name: "Elif Yilmaz", email: "elif.yilmaz@example.com", phone: null, company: "Contoso", job_title: "Data Scientist", notes: null },
  { name: "Lucas Martin", email: "lucas.martin@example.com", phone: "+33 1 23 45 67 89", company: "Northwind", job_title: "CFO", notes: null },
];

/** Gives the user the demo contacts they lack; safe to call repeatedly. Returns how many were added. */
export function seedDemoContacts(userId: string): Promise<number> {
  return insertMissingContacts({ ownerId: userId, contacts: DEMO_CONTACTS });
}
