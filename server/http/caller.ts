import "server-only";
import { authenticateRequest, claimedApiKeyCaller, type ClaimedApiKey, type Principal } from "../auth/session";
import { ApiKeyRefusedError, AppError } from "../errors";
import { forgetApiKeyOwner } from "../auth/api-keys";

/**
 * Runs a handler's work (checks, parsing, the service call) for the request's caller. A bearer
 * key seen in the last few minutes names its user without a database read: `claimedKey` then
 * goes to the service, whose one statement checks the key in the same round trip (startRun's
 * accepting statement, the /history page query), so the request makes one round trip instead of
 * two. Any failure checks the key before it is reported, so a refused key is always answered
 * 401, as when it is read up front.
 */
export async function withCaller<T>(req: Request, work: (caller: { principal: Principal; claimedKey?: ClaimedApiKey }) => Promise<T>): Promise<T> {
  const claimed = claimedApiKeyCaller(req);
  if (!claimed) return work({ principal: await authenticateRequest(req) });
  let verified = false;
  const verify = async () => {
    if (verified) return;
    verified = true;
    await authenticateRequest(req);
  };
  try {
    return await work({ principal: claimed.principal, claimedKey: { hash: claimed.keyHash, verify } });
  } catch (err) {
    if (err instanceof ApiKeyRefusedError) forgetApiKeyOwner(err.keyHash);
    await verify(); // throws the 401 that says what is wrong with the key
    if (err instanceof ApiKeyRefusedError) throw new AppError("UNAUTHORIZED", "Invalid API key");
    throw err;
  }
}
