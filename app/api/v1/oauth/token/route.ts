import { tokenEndpoint } from "@/server/http/endpoints/oauth";

export const dynamic = "force-dynamic";
export const POST = tokenEndpoint.handler;
