-- Engine observations (planner/enginelog/observation): what one start-up of
-- llama.cpp, vLLM or SGLang allocated, uploaded from a parsed log, kept
-- apart from calibration uploads: they are not aggregated, they are listed
-- and read by `vramplan engines refit`.
--
-- Plain SQLite that Cloudflare D1 runs too; every statement is safe to run
-- again, as in 0001.

CREATE TABLE IF NOT EXISTS observations (
  seq        INTEGER PRIMARY KEY AUTOINCREMENT,
  id         TEXT    NOT NULL UNIQUE,
  digest     TEXT    NOT NULL UNIQUE,
  engine     TEXT    NOT NULL,
  model      TEXT    NOT NULL,
  gpu        TEXT    NOT NULL,
  status     TEXT    NOT NULL CHECK (status IN ('accepted', 'held')),
  reasons    TEXT    NOT NULL DEFAULT '[]',
  created    INTEGER NOT NULL,
  client     TEXT    NOT NULL DEFAULT '',
  token_hash TEXT    NOT NULL,
  document   TEXT    NOT NULL
);

CREATE INDEX IF NOT EXISTS observations_by_engine ON observations (engine, seq);
