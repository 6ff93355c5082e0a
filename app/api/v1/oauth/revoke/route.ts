import { revocationEndpoint } from "@/server/http/endpoints/oauth";

export const dynamic = "force-dynamic";
export const POST = revocationEndpoint.handler;
