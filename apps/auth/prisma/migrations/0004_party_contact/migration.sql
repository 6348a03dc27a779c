-- Whom a clinic calls about a party's requests (docs/parties.md, "Contact"): the name and telephone
-- of the social service or desk, set by the operator (`party create|update --contact-name
-- --contact-phone`) and shown to the clinics the party's requests reach.
ALTER TABLE party ADD COLUMN contact_name text;
ALTER TABLE party ADD COLUMN contact_phone text;
