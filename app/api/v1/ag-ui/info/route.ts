import { conversationInfoEndpoint } from "@/server/http/endpoints/ag-ui";

export const dynamic = "force-dynamic";
export const GET = conversationInfoEndpoint.handler;
