CREATE TABLE inbox_message (
  message_id   uuid PRIMARY KEY,
  message_type text NOT NULL,
  processed_at timestamptz(3) NOT NULL DEFAULT now()
);
