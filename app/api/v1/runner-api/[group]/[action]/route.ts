import { hostApiEndpoint } from "@/server/http/endpoints/runner-api";

export const dynamic = "force-dynamic";
export const POST = hostApiEndpoint.handler;
