import "server-only";
import { getPool } from "@/server/db";

// Which skills are hidden, from the user (chat settings) and from a runner binding (console).
// These rows decide what the agent is shown, never what it may run.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The skills a run does not show: its user's hidden ones and its binding's. */
export async function findHiddenSkills({ runId, userId }: { runId: string; userId: string }): Promise<string[]> {
  const { rows } = await getPool().query<{ hidden: string[] }>({
    name: "dispatch-skills-hidden-for-run",
    text: `select coalesce(u.hidden_skills, '{}') || coalesce(b.hidden_skills, '{}') as hidden
           from users u
           left join runs r on r.id = $1 and r.user_id = u.id
           left join agent_bindings b on b.id = r.binding_id
           where u.id = $2`,
    // A run id that is no runs row (a test's, a tool call outside a run) has no binding.
    values: [UUID.test(runId) ? runId : null, userId],
  });
  return rows[0]?.hidden ?? [];
}

export async function findUserHiddenSkills({ userId }: { userId: string }): Promise<string[]> {
  const { rows } = await getPool().query<{ hidden: string[] }>(`select coalesce(hidden_skills, '{}') as hidden from users where id = $1`, [userId]);
  return rows[0]?.hidden ?? [];
}

export async function setUserHiddenSkills({ userId, hidden }: { userId: string; hidden: readonly string[] }): Promise<void> {
  await getPool().query(`update users set hidden_skills = $2 where id = $1`, [userId, hidden]);
}

/** Every binding's hidden skills, for the console's bindings list. */
export async function listBindingHiddenSkills(): Promise<{ bindingId: string; hidden: string[] }[]> {
  const { rows } = await getPool().query<{ bindingId: string; hidden: string[] }>(
    `select id as "bindingId", coalesce(hidden_skills, '{}') as hidden from agent_bindings order by created_at`,
  );
  return rows;
}

/** False when no binding has that id. */
export async function setBindingHiddenSkills({ bindingId, hidden }: { bindingId: string; hidden: readonly string[] }): Promise<boolean> {
  const { rowCount } = await getPool().query(`update agent_bindings set hidden_skills = $2, updated_at = now() where id = $1`, [bindingId, hidden]);
  return (rowCount ?? 0) > 0;
}
