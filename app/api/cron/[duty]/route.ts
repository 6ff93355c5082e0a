import { cronEndpoint } from "@/server/http/endpoints/cron";

export const dynamic = "force-dynamic";
export const maxDuration = 300;
export const GET = cronEndpoint.handler;
