import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { newWebhookSecret, webhookHeaders } from "./signing";

describe("webhook signatures", () => {
  it("verify with the Standard Webhooks library, under either secret of a rotation", () => {
    const [current, previous] = [newWebhookSecret(), newWebhookSecret()];
    const body = JSON.stringify({ type: "run.completed", timestamp: new Date().toISOString(), data: { run: { id: "r1" } } });
    const headers = webhookHeaders({ id: "d1", body, secrets: [current, previous] });
    expect(new Webhook(current).verify(body, headers)).toMatchObject({ type: "run.completed" });
    expect(new Webhook(previous).verify(body, headers)).toMatchObject({ data: { run: { id: "r1" } } });
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow(/signature/);
    expect(() => new Webhook(current).verify(body.replace("r1", "r2"), headers)).toThrow(/signature/);
  });
});
