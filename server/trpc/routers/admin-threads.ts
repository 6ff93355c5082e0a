import "server-only";
import { adminProcedure, createTRPCRouter } from "../init";
import {
  getThreadDetail,
  listThreadMessages,
  listThreadMessagesInput,
  listThreads,
  listThreadsInput,
  threadIdInput,
} from "../../admin/service/threads";

export const adminThreadsRouter = createTRPCRouter({
  list: adminProcedure.input(listThreadsInput).query(({ input }) => listThreads(input)),
  get: adminProcedure.input(threadIdInput).query(({ input }) => getThreadDetail(input)),
  messages: adminProcedure.input(listThreadMessagesInput).query(({ input }) => listThreadMessages(input)),
});
