// The rules AG-UI shared state keeps wherever it comes from (a client's RunAgentInput.state, the
// agent's update_state patches): a JSON object, at most MAX_STATE_BYTES serialized, and no member
// named like a secret, because state is shown to the model, streamed, logged and kept with the
// thread (docs/ag-ui.md, "Shared state").

/** The most a thread's state may weigh, serialized as JSON (UTF-8 bytes). */
export const MAX_STATE_BYTES = 64 * 1024;

// Member names that hold credentials, matched whole (after dropping "_" and "-"), so `token_count`
// or `passwordHint` stay ordinary names while `api_key`, `accessToken` or `Authorization` are refused.
const SECRET_NAMES = new Set([
  "password",
  "passwd",
  "secret",
  "clientsecret",
  "apikey",
  "accesstoken",
  "refreshtoken",
  "idtoken",
  "bearertoken",
  "authtoken",
  "sessiontoken",
  "authorization",
  "privatekey",
  "credential",
  "credentials",
  "cookie",
]);

// The names above are 6 to 13 letters once "_" and "-" are dropped: most members (id, title, done)
// are told apart by their length alone, without building a folded copy of the name.
const SHORTEST_SECRET = 6;

export const isSecretName = (key: string) =>
  key.length >= SHORTEST_SECRET && SECRET_NAMES.has((key.includes("_") || key.includes("-") ? key.replace(/[_-]/g, "") : key).toLowerCase());

export type StateProblem = { status: 400 | 413; message: string };

const escapeToken = (key: string) => key.replace(/~/g, "~0").replace(/\//g, "~1");

/**
 * The JSON Pointer tokens of the first member named like a secret, innermost first, or null. The
 * pointer is built only for what is found: a state of thousands of members is walked without a
 * string a member.
 */
function secretMember(value: unknown): string[] | null {
  if (typeof value !== "object" || value === null) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = secretMember(value[i]);
      if (found) return (found.push(String(i)), found);
    }
    return null;
  }
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (isSecretName(key)) return [escapeToken(key)];
    const found = secretMember((value as Record<string, unknown>)[key]);
    if (found) return (found.push(escapeToken(key)), found);
  }
  return null;
}

/** `secretMember`'s finding as a JSON Pointer below `path`. */
const pointer = (path: string, tokens: string[] | null) => (tokens ? `${path}/${tokens.reverse().join("/")}` : null);

/** The serialized size of a state, in UTF-8 bytes. */
export const stateBytes = (json: string) => Buffer.byteLength(json, "utf8");

/**
 * Why `state` cannot be a thread's shared state, or null when it can. `json` is its serialization
 * when the caller has it already.
 */
export function stateProblem(state: unknown, json = JSON.stringify(state), opts: { secrets: boolean } = { secrets: true }): StateProblem | null {
  if (typeof state !== "object" || state === null || Array.isArray(state)) return { status: 400, message: "state must be a JSON object" };
  const size = stateBytes(json);
  if (size > MAX_STATE_BYTES) {
    return { status: 413, message: `state is ${size} bytes as JSON; the limit is ${MAX_STATE_BYTES} bytes (64 KiB): keep large documents elsewhere and put their ids in state` };
  }
  const secret = opts.secrets ? pointer("", secretMember(state)) : null;
  if (secret) return { status: 400, message: `state must not hold secrets: the member at ${secret} is named like a credential` };
  return null;
}

/**
 * Why a patch would make a state that keeps the rules hold a secret, or null: the members it
 * writes (their names, and the names inside the values it adds) are all that can have changed.
 * For the same answer as `stateProblem` on the patched state at a fraction of its cost.
 */
export function patchProblem(operations: readonly { op: string; path: string; value?: unknown }[]): StateProblem | null {
  for (const op of operations) {
    if (op.op === "remove" || op.op === "test") continue;
    const name = op.path.slice(op.path.lastIndexOf("/") + 1).replace(/~1/g, "/").replace(/~0/g, "~");
    const secret = op.path !== "" && isSecretName(name) ? op.path : "value" in op ? pointer(op.path, secretMember(op.value)) : null;
    if (secret) return { status: 400, message: `state must not hold secrets: the member at ${secret} is named like a credential` };
  }
  return null;
}

/** Whether a client's state asks for anything: absent, null and {} continue from the thread's kept state. */
export function sendsState(state: unknown): boolean {
  if (state === undefined || state === null) return false;
  return typeof state !== "object" || Array.isArray(state) || Object.keys(state).length > 0;
}
