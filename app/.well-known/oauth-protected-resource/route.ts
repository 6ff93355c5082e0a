import { protectedResourceEndpoint } from "@/server/http/endpoints/oauth";

export const dynamic = "force-dynamic";
export const GET = protectedResourceEndpoint.handler;
