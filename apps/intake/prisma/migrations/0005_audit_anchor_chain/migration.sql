-- The anchors form a chain (src/audit/anchor-chain.ts, docs/data-protection.md "Anchors"): from now
-- on every ended UTC day gets an anchor, an empty day too, and each names the hash of the anchor
-- before it (previous_hash) and records its own (hash, over day, head and previous_hash). A day
-- removed together with its anchor then leaves a gap, or an anchor that follows one the database no
-- longer holds. Anchors made before this migration keep both NULL: each still verifies on its own,
-- and the first anchor made after them names the last of them as its previous one.
ALTER TABLE audit_anchors
  ADD COLUMN previous_hash text,
  ADD COLUMN hash          text,
  ADD CONSTRAINT audit_anchors_chained CHECK ((previous_hash IS NULL) = (hash IS NULL));
