-- Disabling a person or a party ends the access tokens already issued (docs/parties.md, "Disabling"):
-- every disable sets tokens_revoked_at, and auth lists the recent ones at GET /internal/revocations,
-- which the gateway polls. Enabling again (`user upsert`) leaves it, so that a token issued before it
-- stays refused until it expires.
ALTER TABLE user_account ADD COLUMN tokens_revoked_at timestamptz(3);
ALTER TABLE party ADD COLUMN tokens_revoked_at timestamptz(3);

-- Who was disabled before this release: tokens issued within the hour before the upgrade are refused too.
UPDATE user_account SET tokens_revoked_at = disabled_at WHERE disabled_at IS NOT NULL;
UPDATE party SET tokens_revoked_at = disabled_at WHERE disabled_at IS NOT NULL;

-- The list reads the last hour's revocations every second, per gateway.
CREATE INDEX user_account_tokens_revoked_at_idx ON user_account (tokens_revoked_at);
CREATE INDEX party_tokens_revoked_at_idx ON party (tokens_revoked_at);
