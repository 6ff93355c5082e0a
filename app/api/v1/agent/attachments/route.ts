import { uploadAttachmentEndpoint } from "@/server/http/endpoints/attachments";

export const dynamic = "force-dynamic";
export const POST = uploadAttachmentEndpoint.handler;
