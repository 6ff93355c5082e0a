import { deleteScheduleEndpoint, getScheduleEndpoint, updateScheduleEndpoint } from "@/server/http/endpoints/schedules";

export const dynamic = "force-dynamic";
export const GET = getScheduleEndpoint.handler;
export const PATCH = updateScheduleEndpoint.handler;
export const DELETE = deleteScheduleEndpoint.handler;
