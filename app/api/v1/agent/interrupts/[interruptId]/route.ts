import { decideInterruptEndpoint } from "@/server/http/endpoints/approvals";

export const dynamic = "force-dynamic";
export const POST = decideInterruptEndpoint.handler;
