import { describe, expect, it } from "vitest";
import { permissionsSchema } from "../protocols/runner/manifest";
import { bindingPolicySchema, computeAuthorization } from "./policy";

const base = {
  runnerId: "plugin:acme/bot/default",
  endpointId: "e1",
  conversationId: "11111111-1111-4111-8111-111111111111",
  actorId: "u1",
  eventId: "evt_1",
  available: { modelIds: ["m1"], toolNames: ["project_cli"], knowledgeBaseIds: ["22222222-2222-4222-8222-222222222222", "33333333-3333-4333-8333-333333333333"] },
};

describe("computeAuthorization", () => {
  it("grants what the manifest asks when the binding policy is silent, except platform actions", () => {
    const auth = computeAuthorization({
      ...base,
      bindingId: "b1",
      permissions: permissionsSchema.parse({ models: ["invoke", "stream"], tools: ["call"], storage: ["plugin", "binding"], platform_api: ["message.edit"] }),
      policy: {},
    });
    expect(auth.models).toEqual({ operations: ["invoke", "stream"], model_ids: ["m1"] });
    expect(auth.tools).toEqual({ operations: ["call"], names: ["project_cli"] });
    expect(auth.storage.areas).toEqual(["plugin", "binding"]);
    expect(auth.platform_api.actions).toEqual([]);
    expect(auth.history).toEqual({ operations: [], conversation_ids: [base.conversationId] });
    expect(auth.state.scopes).toEqual(["conversation", "actor", "subject", "runner", "binding"]);
  });

  it("is the intersection of manifest permissions and binding policy", () => {
    const auth = computeAuthorization({
      ...base,
      bindingId: "b1",
      permissions: permissionsSchema.parse({ models: ["invoke"], tools: ["detail", "call"], knowledge_bases: ["retrieve"], platform_api: ["message.edit", "reaction.add"] }),
      policy: bindingPolicySchema.parse({
        models: { operations: ["invoke", "rerank"] },
        tools: { operations: ["detail"] },
        knowledge_bases: { ids: ["33333333-3333-4333-8333-333333333333"] },
        platform_api: { actions: ["reaction.add", "message.delete"] },
        state: { scopes: ["conversation"] },
      }),
    });
    expect(auth.models.operations).toEqual(["invoke"]);
    expect(auth.tools.operations).toEqual(["detail"]);
    expect(auth.knowledge_bases).toEqual({ operations: ["retrieve"], ids: ["33333333-3333-4333-8333-333333333333"] });
    expect(auth.platform_api.actions).toEqual(["reaction.add"]);
    expect(auth.state.scopes).toEqual(["conversation"]);
  });

  it("grants no state and no binding storage without a binding", () => {
    const auth = computeAuthorization({ ...base, bindingId: null, permissions: permissionsSchema.parse({ storage: ["binding", "workspace"] }), policy: {} });
    expect(auth.state.scopes).toEqual([]);
    expect(auth.storage.areas).toEqual(["workspace"]);
  });

  it("refuses unknown policy keys", () => {
    expect(bindingPolicySchema.safeParse({ modles: {} }).success).toBe(false);
  });
});
