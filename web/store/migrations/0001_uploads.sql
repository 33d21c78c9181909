-- Community calibration uploads: the uploads themselves, per-group state that
-- triggers keep in step with them, cached aggregates, rate-limit counters and
-- the store's settings (the address-hash salt).
--
-- Plain SQLite that Cloudflare D1 runs too. Every statement is safe to run
-- again (IF NOT EXISTS), so a migration interrupted halfway is finished by
-- running it once more. Table and column names avoid SQLite keywords.

CREATE TABLE IF NOT EXISTS uploads (
  seq        INTEGER PRIMARY KEY AUTOINCREMENT,
  id         TEXT    NOT NULL UNIQUE,
  digest     TEXT    NOT NULL UNIQUE,
  group_key  TEXT    NOT NULL,
  status     TEXT    NOT NULL CHECK (status IN ('accepted', 'held')),
  reasons    TEXT    NOT NULL DEFAULT '[]',
  created    INTEGER NOT NULL,
  client     TEXT    NOT NULL DEFAULT '',
  token_hash TEXT    NOT NULL,
  figures    TEXT    NOT NULL DEFAULT '{}',
  document   TEXT    NOT NULL
);

CREATE INDEX IF NOT EXISTS uploads_by_group ON uploads (group_key, status, seq);

-- upload_groups is maintained by the triggers below, in the same statement
-- as the insert or delete that changes a group, so no write needs a
-- transaction: version grows with every change, which is what invalidates a
-- cached aggregate.
CREATE TABLE IF NOT EXISTS upload_groups (
  group_key TEXT    PRIMARY KEY,
  version   INTEGER NOT NULL DEFAULT 0,
  accepted  INTEGER NOT NULL DEFAULT 0,
  held      INTEGER NOT NULL DEFAULT 0
);

CREATE TRIGGER IF NOT EXISTS uploads_counted AFTER INSERT ON uploads
BEGIN
  INSERT OR IGNORE INTO upload_groups (group_key) VALUES (NEW.group_key);
  UPDATE upload_groups
     SET version  = version + 1,
         accepted = accepted + (NEW.status = 'accepted'),
         held     = held + (NEW.status = 'held')
   WHERE group_key = NEW.group_key;
END;

CREATE TRIGGER IF NOT EXISTS uploads_uncounted AFTER DELETE ON uploads
BEGIN
  UPDATE upload_groups
     SET version  = version + 1,
         accepted = accepted - (OLD.status = 'accepted'),
         held     = held - (OLD.status = 'held')
   WHERE group_key = OLD.group_key;
END;

CREATE TABLE IF NOT EXISTS aggregates (
  group_key TEXT    PRIMARY KEY,
  version   INTEGER NOT NULL,
  document  TEXT    NOT NULL
);

CREATE TABLE IF NOT EXISTS hits (
  hit_key TEXT    NOT NULL,
  win     INTEGER NOT NULL,
  n       INTEGER NOT NULL,
  PRIMARY KEY (hit_key, win)
);

CREATE TABLE IF NOT EXISTS settings (
  name  TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
