import "server-only";
import type { HostApiHandlers } from "./call";
import { artifactMetadata, readArtifactRange, streamArtifact } from "./handlers/artifacts";
import { getEvent, pageEvents } from "./handlers/events";
import { pageHistory, searchHistory } from "./handlers/history";
import { listKnowledge, retrieveFromKnowledge } from "./handlers/knowledge";
import { invokeModel, streamModel } from "./handlers/models";
import { rerankModel } from "./handlers/rerank";
import { requestPlatformAction } from "./handlers/platform";
import { deleteStateValue, getStateValue, setStateValue } from "./handlers/state";
import { deleteStored, getStored, listStored, setStored } from "./handlers/storage";
import { callTool, getToolDetail } from "./handlers/tools";

/** Which function answers each action of HOST_API_ACTIONS; the type makes a missing one a compile error. */
export const HOST_API_HANDLERS: HostApiHandlers = {
  "models/invoke": invokeModel,
  "models/stream": streamModel,
  "models/rerank": rerankModel,
  "tools/get_detail": getToolDetail,
  "tools/call": callTool,
  "knowledge/list": listKnowledge,
  "knowledge/retrieve": retrieveFromKnowledge,
  "history/page": pageHistory,
  "history/search": searchHistory,
  "events/get": getEvent,
  "events/page": pageEvents,
  "artifacts/metadata": artifactMetadata,
  "artifacts/read_range": readArtifactRange,
  "artifacts/open_stream": streamArtifact,
  "state/get": getStateValue,
  "state/set": setStateValue,
  "state/delete": deleteStateValue,
  "storage/get": getStored,
  "storage/set": setStored,
  "storage/delete": deleteStored,
  "storage/list": listStored,
  "platform/request_action": requestPlatformAction,
};
