import { modelsEndpoint } from "@/server/http/endpoints/status";

export const dynamic = "force-dynamic";
export const GET = modelsEndpoint.handler;
