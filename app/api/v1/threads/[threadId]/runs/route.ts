import { listThreadRunsEndpoint } from "@/server/http/endpoints/threads";

export const dynamic = "force-dynamic";
export const GET = listThreadRunsEndpoint.handler;
