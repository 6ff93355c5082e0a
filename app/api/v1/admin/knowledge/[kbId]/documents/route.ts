import { addDocumentEndpoint } from "@/server/http/endpoints/knowledge";

export const dynamic = "force-dynamic";
export const POST = addDocumentEndpoint.handler;
