import { baseUrl } from "./helpers";

function cookiesFrom(res: Response): string[] {
  return res.headers.getSetCookie().map((c) => c.split(";")[0]!);
}

/** Signs in through Auth.js's credentials endpoint, as the browser does; returns the Cookie header. */
export async function signInOverHttp(email: string, password: string, base = baseUrl()): Promise<string | null> {
  const csrfRes = await fetch(`${base}/api/auth/csrf`);
  const { csrfToken } = (await csrfRes.json()) as { csrfToken: string };
  const jar = cookiesFrom(csrfRes);
  const res = await fetch(`${base}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar.join("; ") },
    body: new URLSearchParams({ email, password, csrfToken, callbackUrl: "/" }),
  });
  const session = cookiesFrom(res).find((c) => c.startsWith("authjs.session-token=") && c.length > "authjs.session-token=".length);
  return session ? [...jar, session].join("; ") : null;
}

export function trpcGet(path: string, input: unknown, headers: Record<string, string> = {}): Promise<Response> {
  const q = encodeURIComponent(JSON.stringify({ json: input }));
  return fetch(`${baseUrl()}/api/trpc/${path}?input=${q}`, { headers });
}
