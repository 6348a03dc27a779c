-- Whether a person wants e-mail about their party's requests (docs/operations.md, "E-mail"): each
-- person sets it for themself (PUT /api/v1/party/users/me/notifications); off until they do.
ALTER TABLE user_account ADD COLUMN email_notifications boolean NOT NULL DEFAULT false;

-- The opted-in people of a party, read at every mail sent (GET /internal/parties/{id}/mail-recipients).
CREATE INDEX user_account_mail_recipients_idx ON user_account (party_id) WHERE email_notifications AND disabled_at IS NULL;
