import { cancelRunEndpoint } from "@/server/http/endpoints/runs";

export const dynamic = "force-dynamic";
export const POST = cancelRunEndpoint.handler;
