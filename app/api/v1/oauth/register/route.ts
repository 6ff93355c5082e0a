import { registerClientEndpoint } from "@/server/http/endpoints/oauth";

export const dynamic = "force-dynamic";
export const POST = registerClientEndpoint.handler;
