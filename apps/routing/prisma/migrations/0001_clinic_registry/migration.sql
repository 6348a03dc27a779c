CREATE TABLE clinic (
  ik          text PRIMARY KEY CHECK (ik ~ '^[0-9]{9}$'),
  name        text NOT NULL CHECK (name <> ''),
  departments text[] NOT NULL CHECK (cardinality(departments) > 0),
  created_at  timestamptz(3) NOT NULL DEFAULT now(),
  updated_at  timestamptz(3) NOT NULL DEFAULT now()
);
