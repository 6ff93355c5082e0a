import "server-only";
import type { JsonHandler } from "../call";
import { HostApiFailure } from "../failure";

// TEMPORARY until server/knowledge lands.
export const listKnowledge: JsonHandler<"knowledge/list"> = async () => ({ knowledge_bases: [] });
export const retrieveFromKnowledge: JsonHandler<"knowledge/retrieve"> = async () => {
  throw new HostApiFailure("runtime_error", "not yet");
};
