import { historyEndpoint } from "@/server/http/endpoints/history";

export const dynamic = "force-dynamic";
export const GET = historyEndpoint.handler;
