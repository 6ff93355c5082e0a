import { forkThreadEndpoint } from "@/server/http/endpoints/threads";

export const dynamic = "force-dynamic";
export const POST = forkThreadEndpoint.handler;
