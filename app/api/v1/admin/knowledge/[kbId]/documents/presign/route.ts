import { presignDocumentEndpoint } from "@/server/http/endpoints/knowledge";

export const dynamic = "force-dynamic";
export const POST = presignDocumentEndpoint.handler;
