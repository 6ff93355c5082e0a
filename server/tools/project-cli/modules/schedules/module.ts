import "server-only";
import { method, type ModuleDefinition } from "../../module";
import { asksCreate, asksDelete } from "./asks";
import { createSchedule, deleteSchedule, listSchedules } from "./handlers";
import { schedulesCreateInput, schedulesDeleteInput, schedulesListInput } from "./schemas";

export const schedulesModule: ModuleDefinition = {
  name: "schedules",
  subject: "schedules",
  summary: "Requests that run later on the user's behalf: “remind me every Monday at 9 to summarize my week” becomes a schedule; list and delete them.",
  methods: {
    list: method({ kind: "read", input: schedulesListInput, handler: listSchedules, example: {} }),
    create: method({
      kind: "write",
      input: schedulesCreateInput,
      handler: createSchedule,
      // A schedule acts later with nobody watching, in the user's name: it is asked about as a
      // write that reaches beyond this conversation.
      involvesOthers: true,
      // The time and the message are in the question.
      asks: asksCreate,
      shows: ["name"],
      example: { message: "Summarize my week", cron: "0 9 * * 1", time_zone: "Europe/Berlin" },
      pitfalls: ["Write cron in the user's time zone (time_zone), not UTC; a one-off reminder uses at, not cron."],
    }),
    delete: method({
      kind: "write",
      input: schedulesDeleteInput,
      handler: deleteSchedule,
      // A deletion asks, as deletions do.
      involvesOthers: true,
      asks: asksDelete,
      shows: [],
      example: { id: "6f1c2b1e-8d3a-4c55-9a51-0b7c1e2f3a4d" },
    }),
  },
  cards: [],
  rules: ["When the user asks to be reminded or for something to happen later or regularly, create a schedule with schedules.create; find its id with schedules.list to delete it."],
};
