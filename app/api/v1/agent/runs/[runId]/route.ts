import { runStatusEndpoint } from "@/server/http/endpoints/runs";

export const dynamic = "force-dynamic";
export const GET = runStatusEndpoint.handler;
