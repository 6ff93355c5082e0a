import { trpcEndpoint } from "@/server/http/endpoints/trpc";

export const dynamic = "force-dynamic";

// /api/trpc/*: the admin API (admins only, enforced per procedure)
export { trpcEndpoint as GET, trpcEndpoint as POST };
