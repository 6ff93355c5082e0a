-- The budgets a new run must fit, checked by dispatch_accept_run before it writes anything: for
-- the user (their usage_limits row, else the default row, else p_defaults from the environment)
-- and, when the run comes with an API key, for that key (its own row only). Three kinds, each
-- counted from the database so every server instance sees the same numbers: tokens per UTC day,
-- runs started in the last minute and runs in progress (runs). When any limit applies, the user's
-- accepts are serialized by an advisory lock held to the end of the accepting statement, so two
-- instances cannot both admit the run that would exceed it.
-- Token reservations: a day's tokens are those of the runs that ended today (usage_daily) plus
-- those reserved by the runs in progress (runs.reserved_tokens, written by the accepting statement
-- under the same lock). A run is admitted while that sum is below the budget, so runs accepted at
-- the same time exceed it by at most one run's reservation; a run's end replaces its reservation
-- with its actual usage (its status leaves queued/running in the statement that adds it to
-- usage_daily), whatever ends it: its executor, a cancel, or the sweep that closes a run whose
-- executor stopped reporting.
-- p_defaults: {"tokens_per_day": n, "runs_per_minute": n, "concurrent_runs": n}, any may be absent.
-- Returns NULL when the run fits, else {"status": "limited", "limit": "tokens_per_day" |
-- "runs_per_minute" | "concurrent_runs", "scope": "user" | "api_key", "max": n, "used": n,
-- "retry_after": seconds, "resets_at": when the window frees up (not for concurrent_runs), and for
-- tokens_per_day "reserved": n}. A token budget held only by reservations is retried in a few
-- seconds (a run in progress may end using less); one used up by ended runs at 00:00 UTC.
-- p_tokens_only: only the daily token budgets, by ended runs' usage alone (a run in progress asking
-- the host for a model call: its own reservation must not refuse it).
CREATE OR REPLACE FUNCTION dispatch_run_limits(p_user_id UUID, p_api_key_id UUID, p_defaults JSONB, p_tokens_only BOOLEAN DEFAULT false) RETURNS JSON
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_nil CONSTANT UUID := '00000000-0000-0000-0000-000000000000';
  v_default usage_limits;
  v_user usage_limits;
  v_key usage_limits;
  v_scope TEXT;
  v_tokens BIGINT;
  v_rpm INTEGER;
  v_concurrent INTEGER;
  v_used BIGINT;
  v_reserved BIGINT;
  v_oldest TIMESTAMP(3);
  v_retry INTEGER;
  -- The next 00:00 UTC, when the day's token budgets start again.
  v_midnight TIMESTAMPTZ := (date_trunc('day', now() AT TIME ZONE 'UTC') + interval '1 day') AT TIME ZONE 'UTC';
BEGIN
  SELECT * INTO v_default FROM usage_limits WHERE subject = 'default' AND subject_id = v_nil;
  SELECT * INTO v_user FROM usage_limits WHERE subject = 'user' AND subject_id = p_user_id;
  IF p_api_key_id IS NOT NULL THEN
    SELECT * INTO v_key FROM usage_limits WHERE subject = 'api_key' AND subject_id = p_api_key_id;
  END IF;

  FOREACH v_scope IN ARRAY ARRAY['user', 'api_key'] LOOP
    IF v_scope = 'user' THEN
      v_tokens := coalesce(v_user.tokens_per_day, v_default.tokens_per_day, (p_defaults->>'tokens_per_day')::bigint);
      v_rpm := coalesce(v_user.runs_per_minute, v_default.runs_per_minute, (p_defaults->>'runs_per_minute')::integer);
      v_concurrent := coalesce(v_user.concurrent_runs, v_default.concurrent_runs, (p_defaults->>'concurrent_runs')::integer);
    ELSIF p_api_key_id IS NOT NULL THEN
      v_tokens := v_key.tokens_per_day;
      v_rpm := v_key.runs_per_minute;
      v_concurrent := v_key.concurrent_runs;
    ELSE
      EXIT;
    END IF;

    IF p_tokens_only THEN
      v_rpm := NULL;
      v_concurrent := NULL;
    END IF;

    IF v_rpm IS NOT NULL OR v_concurrent IS NOT NULL OR (v_tokens IS NOT NULL AND NOT p_tokens_only) THEN
      PERFORM pg_advisory_xact_lock(hashtextextended('dispatch_run_limits:' || p_user_id::text, 0));
    END IF;

    IF v_concurrent IS NOT NULL THEN
      SELECT count(*) INTO v_used FROM runs
        WHERE status IN ('queued', 'running') AND user_id = p_user_id AND (v_scope = 'user' OR api_key_id = p_api_key_id);
      IF v_used >= v_concurrent THEN
        RETURN json_build_object('status', 'limited', 'limit', 'concurrent_runs', 'scope', v_scope, 'max', v_concurrent, 'used', v_used, 'retry_after', 5);
      END IF;
    END IF;

    IF v_rpm IS NOT NULL THEN
      IF v_scope = 'user' THEN
        SELECT count(*) INTO v_used FROM runs WHERE user_id = p_user_id AND created_at > now() - interval '1 minute';
      ELSE
        SELECT count(*) INTO v_used FROM runs WHERE api_key_id = p_api_key_id AND created_at > now() - interval '1 minute';
      END IF;
      IF v_used >= v_rpm THEN
        -- The wait until enough of the last minute's runs have aged out of it.
        SELECT created_at INTO v_oldest FROM runs
          WHERE created_at > now() - interval '1 minute' AND (CASE WHEN v_scope = 'user' THEN user_id = p_user_id ELSE api_key_id = p_api_key_id END)
          ORDER BY created_at OFFSET v_used - v_rpm LIMIT 1;
        -- At most 60: a run another instance accepted after this transaction began is newer than now().
        v_retry := least(60, greatest(1, ceil(extract(epoch FROM (v_oldest + interval '1 minute' - now())))::integer));
        RETURN json_build_object('status', 'limited', 'limit', 'runs_per_minute', 'scope', v_scope, 'max', v_rpm, 'used', v_used,
          'retry_after', v_retry, 'resets_at', to_char((now() + make_interval(secs => v_retry)) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'));
      END IF;
    END IF;

    IF v_tokens IS NOT NULL THEN
      SELECT coalesce(sum(total_tokens), 0) INTO v_used FROM usage_daily
        WHERE day = (now() AT TIME ZONE 'UTC')::date AND user_id = p_user_id AND (v_scope = 'user' OR api_key_id = p_api_key_id);
      v_reserved := 0;
      IF NOT p_tokens_only AND v_used < v_tokens THEN
        SELECT coalesce(sum(reserved_tokens), 0) INTO v_reserved FROM runs
          WHERE status IN ('queued', 'running') AND user_id = p_user_id AND (v_scope = 'user' OR api_key_id = p_api_key_id);
      END IF;
      IF v_used + v_reserved >= v_tokens THEN
        RETURN json_build_object('status', 'limited', 'limit', 'tokens_per_day', 'scope', v_scope, 'max', v_tokens, 'used', v_used,
          'reserved', v_reserved, 'resets_at', to_char(v_midnight AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
          'retry_after', CASE WHEN v_used >= v_tokens THEN greatest(1, ceil(extract(epoch FROM (v_midnight - now())))::integer) ELSE 5 END);
      END IF;
    END IF;
  END LOOP;
  RETURN NULL;
END;
$$;
