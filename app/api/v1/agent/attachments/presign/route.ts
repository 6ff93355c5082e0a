import { presignAttachmentEndpoint } from "@/server/http/endpoints/attachments";

export const dynamic = "force-dynamic";
export const POST = presignAttachmentEndpoint.handler;
