-- A new user's approval policy is `others` (docs/approvals.md): their own memory and events that
-- involve nobody else go ahead; invitations, sharing, deletions and shared changes ask. Users who
-- exist keep the policy they have; `npm run admin -- user:approval-policy` or the chat's settings
-- change it.
ALTER TABLE "users" ALTER COLUMN "approval_policy" SET DEFAULT 'others';
