import { deleteThreadEndpoint, getThreadEndpoint, updateThreadEndpoint } from "@/server/http/endpoints/threads";

export const dynamic = "force-dynamic";
export const GET = getThreadEndpoint.handler;
export const PATCH = updateThreadEndpoint.handler;
export const DELETE = deleteThreadEndpoint.handler;
