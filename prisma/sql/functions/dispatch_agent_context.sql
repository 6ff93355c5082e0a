-- What the built-in agent starts from: the thread's newest messages on its current branch that belong to other runs
-- (oldest first; metadata only on tool messages, the only ones whose metadata the conversation
-- reads, else {}), the user's newest memory facts, and the skills the run does not show (the
-- user's hidden ones and its binding's: they decide what the agent is shown, never what it may
-- run), whether the thread has approvals no run carried yet (when it has none, the run has
-- nothing to claim and skips that statement), and the MCP servers the run may use (granted to
-- its user or to its binding; `allowed`: each grant's tool list, empty for all of them), as
-- {"history": [...], "memory": [...], "hiddenSkills": [...], "unresolvedApprovals": bool,
--  "mcpServers": [{"id", "name", "tools", "allowed"}]}.
-- Built as json, not jsonb: the runner parses it as text anyway, and jsonb would build every
-- message's object twice.
CREATE OR REPLACE FUNCTION dispatch_agent_context(p_thread_id UUID, p_run_id UUID, p_user_id UUID, p_history_limit INTEGER, p_memory_limit INTEGER)
RETURNS JSON
LANGUAGE sql STABLE AS $$
  SELECT json_build_object(
    'history', (SELECT coalesce(json_agg(h ORDER BY h.seq), '[]'::json) FROM (
      SELECT role, content, CASE WHEN role = 'tool' THEN metadata ELSE '{}'::jsonb END AS metadata, run_id AS "runId", seq FROM messages
      WHERE thread_id = p_thread_id AND on_branch AND (run_id IS NULL OR run_id <> p_run_id) AND role IN ('user', 'assistant', 'tool')
      ORDER BY seq DESC LIMIT p_history_limit) h),
    'memory', (SELECT coalesce(json_agg(f), '[]'::json) FROM (
      SELECT key, value FROM memory_facts WHERE user_id = p_user_id ORDER BY updated_at DESC, key LIMIT p_memory_limit) f),
    'hiddenSkills', (SELECT coalesce(u.hidden_skills, '{}') || coalesce(b.hidden_skills, '{}') FROM users u
      LEFT JOIN runs r ON r.id = p_run_id AND r.user_id = u.id
      LEFT JOIN agent_bindings b ON b.id = r.binding_id
      WHERE u.id = p_user_id),
    'unresolvedApprovals', EXISTS (SELECT 1 FROM approvals a WHERE a.thread_id = p_thread_id AND a.resolved_run_id IS NULL AND a.run_id <> p_run_id),
    'mcpServers', (SELECT coalesce(json_agg(m ORDER BY m.name), '[]'::json) FROM (
      SELECT s.id, s.name, s.tools, jsonb_agg(coalesce(g.tools, '{}')) AS allowed FROM mcp_servers s
      JOIN mcp_server_grants g ON g.server_id = s.id
      LEFT JOIN runs r ON r.id = p_run_id AND r.user_id = p_user_id
      WHERE g.user_id = p_user_id OR (g.binding_id IS NOT NULL AND g.binding_id = r.binding_id)
      GROUP BY s.id) m))
$$;
