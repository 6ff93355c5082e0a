import { createScheduleEndpoint, listSchedulesEndpoint } from "@/server/http/endpoints/schedules";

export const dynamic = "force-dynamic";
export const GET = listSchedulesEndpoint.handler;
export const POST = createScheduleEndpoint.handler;
