import { addUploadedDocumentEndpoint } from "@/server/http/endpoints/knowledge";

export const dynamic = "force-dynamic";
export const POST = addUploadedDocumentEndpoint.handler;
