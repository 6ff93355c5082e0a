import { redirect } from "next/navigation";
import { requestDictionary } from "@/components/i18n/request-locale";
import { getSessionPrincipal } from "@/server/auth/session";
import { checkAuthorizeRequest } from "@/server/oauth/service";
import { authorizeParamsSchema, type AuthorizeParams } from "@/server/oauth/schemas";

export const dynamic = "force-dynamic";

// GET /oauth/authorize: the authorization endpoint of Dispatch's OAuth server (docs/mcp.md). A
// signed-in user sees which app asks for their data and answers Allow or Deny; the form posts to
// /api/v1/oauth/authorize, which sends the browser back to the app. Signed out, they sign in first
// and come back here. A request with an unknown client or redirect URI is shown, never followed.

type Search = Record<string, string | string[] | undefined>;

function paramsOf(search: Search): AuthorizeParams {
  const first = Object.fromEntries(Object.entries(search).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v]));
  const parsed = authorizeParamsSchema.safeParse(first);
  return parsed.success ? parsed.data : {};
}

export default async function AuthorizePage({ searchParams }: { searchParams: Promise<Search> }) {
  const params = paramsOf(await searchParams);
  // The consent form's endpoint checks the resource against the origin it was reached at.
  const check = await checkAuthorizeRequest(params, null);
  const t = (await requestDictionary()).oauth;
  if (check.kind === "invalid") {
    return (
      <main className="page" style={{ maxWidth: 480, paddingTop: "12vh" }}>
        <div className="card" role="alert" aria-labelledby="oauth-invalid-title">
          <h1 id="oauth-invalid-title" style={{ marginTop: 0 }}>
            {t.invalidTitle}
          </h1>
          <p>{check.message === "badRedirect" ? t.badRedirect : t.unknownClient}</p>
        </div>
      </main>
    );
  }
  if (check.kind === "redirect") redirect(check.location);
  const principal = await getSessionPrincipal();
  if (!principal) redirect(`/sign-in?callbackUrl=${encodeURIComponent(`/oauth/authorize?${new URLSearchParams(params as Record<string, string>)}`)}`);
  return (
    <main className="page" style={{ maxWidth: 480, paddingTop: "12vh" }}>
      <form method="post" action="/api/v1/oauth/authorize" className="card" aria-labelledby="oauth-title" aria-describedby="oauth-explain">
        <h1 id="oauth-title" style={{ marginTop: 0 }}>
          {t.wants(check.clientName)}
        </h1>
        <p id="oauth-explain">{t.explain}</p>
        <p className="muted">
          {t.signedInAs(principal.email)} {t.returnsTo(check.redirectHost)}
        </p>
        {Object.entries(check.params).map(([name, value]) => (value === undefined ? null : <input key={name} type="hidden" name={name} value={value} />))}
        <div style={{ display: "flex", gap: 8 }}>
          <button className="btn btn-primary" type="submit" name="decision" value="allow">
            {t.allow}
          </button>
          <button className="btn" type="submit" name="decision" value="deny">
            {t.deny}
          </button>
        </div>
      </form>
    </main>
  );
}
