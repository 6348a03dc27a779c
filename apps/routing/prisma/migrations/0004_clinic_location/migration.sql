-- Where a clinic is (docs/api.md, "Answer deadlines", "Asking by rule"): its postal code and a point
-- (WGS 84 degrees), set by `clinic upsert`. A referrer's rule asks the registry's clinics nearest
-- first; a clinic without a point comes last. Both optional: clinics registered before have none.
ALTER TABLE clinic ADD COLUMN postal_code text,
                   ADD COLUMN latitude double precision,
                   ADD COLUMN longitude double precision,
  ADD CONSTRAINT clinic_postal_code_check CHECK (postal_code ~ '^[0-9]{5}$'),
  ADD CONSTRAINT clinic_coordinates_check CHECK (
    (latitude IS NULL) = (longitude IS NULL) AND latitude BETWEEN -90 AND 90 AND longitude BETWEEN -180 AND 180);
