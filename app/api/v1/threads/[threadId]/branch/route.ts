import { switchBranchEndpoint } from "@/server/http/endpoints/branches";

export const dynamic = "force-dynamic";
export const POST = switchBranchEndpoint.handler;
