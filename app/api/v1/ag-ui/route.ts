import { conversationRunEndpoint } from "@/server/http/endpoints/ag-ui";

export const dynamic = "force-dynamic";
export const maxDuration = 300;
export const POST = conversationRunEndpoint.handler;
