import { conversationRunEndpoint } from "@/server/http/endpoints/ag-ui";

export const dynamic = "force-dynamic";
export const POST = conversationRunEndpoint.handler;
