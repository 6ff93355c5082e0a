import { signedObjectEndpoint } from "@/server/http/endpoints/storage";

export const dynamic = "force-dynamic";
export const GET = signedObjectEndpoint.handler;
