import { startRunEndpoint } from "@/server/http/endpoints/runs";

export const dynamic = "force-dynamic";
export const POST = startRunEndpoint.handler;
