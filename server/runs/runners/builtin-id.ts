/**
 * The built-in agent's runner id (plugin:author/name/runner): the engine's default runner
 * answers to it, and the runner host lists, binds and authorizes it like an external runner.
 */
export const AGENT_RUNNER_ID = "plugin:dispatch/builtin/agent";
