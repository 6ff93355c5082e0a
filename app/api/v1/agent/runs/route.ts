import { startRunEndpoint } from "@/server/http/endpoints/runs";

export const dynamic = "force-dynamic";
export const maxDuration = 300;
export const POST = startRunEndpoint.handler;
