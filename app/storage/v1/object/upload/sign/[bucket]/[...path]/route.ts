import { signedUploadEndpoint } from "@/server/http/endpoints/storage";

export const dynamic = "force-dynamic";
export const PUT = signedUploadEndpoint.handler;
