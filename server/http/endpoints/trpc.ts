import "server-only";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { createTrpcContext } from "../../trpc/init";
import { appRouter } from "../../trpc/root";
import { adapterRoute } from "../endpoint";

/** /api/trpc/*: the admin API, tRPC's own adapter (admins only, enforced per procedure; errors mapped in trpc/init.ts). */
export const trpcEndpoint = adapterRoute((req) => fetchRequestHandler({ endpoint: "/api/trpc", req, router: appRouter, createContext: createTrpcContext }));
