import { authJsEndpoints } from "@/server/http/endpoints/auth";

export const { GET, POST } = authJsEndpoints;
