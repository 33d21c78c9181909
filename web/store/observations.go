package store

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// This file holds the engine observations' records and statements
// (migrations/0002_observations.sql): a table apart from the calibration
// uploads, with the same kinds of write — an insert that does nothing when
// the observation is stored, a delete by token — so every implementation
// keeps the seam's rule that each write is one statement safe to repeat.

// Observation is one stored engine observation.
type Observation struct {
	// Seq, ID, Digest, Status, Reasons, Created, Client and TokenHash
	// mean what they mean for an Upload.
	Seq    int64  `json:"seq"`
	ID     string `json:"id"`
	Digest string `json:"digest"`
	// Engine is the observation's engine, Model its model shape's digest
	// and GPU its normalized device name: what a listing filters on.
	Engine    string    `json:"engine"`
	Model     string    `json:"model"`
	GPU       string    `json:"gpu"`
	Status    Status    `json:"status"`
	Reasons   []string  `json:"reasons,omitempty"`
	Created   time.Time `json:"created"`
	Client    string    `json:"-"`
	TokenHash string    `json:"-"`
	// Document is the observation document in canonical form.
	Document []byte `json:"-"`
}

// ObservationQuery selects observations for Observations. Its zero value
// selects the first DefaultLimit of every engine.
type ObservationQuery struct {
	After  int64  // only observations with Seq > After
	Limit  int    // at most this many; 0 means DefaultLimit, capped at MaxLimit
	Engine string // only this engine; empty means every engine
}

// The statements of the observations table.
const (
	// SQLInsertObservation stores an observation unless its id or digest
	// is stored.
	SQLInsertObservation = `INSERT INTO observations (id, digest, engine, model, gpu, status, reasons, created, client, token_hash, document)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`
	// SQLObservationColumns are the columns ScanObservation reads.
	SQLObservationColumns = `seq, id, digest, engine, model, gpu, status, reasons, created, client, token_hash, document`
	// SQLObservationByID reads one observation.
	SQLObservationByID = `SELECT ` + SQLObservationColumns + ` FROM observations WHERE id = ?`
	// SQLObservationConflict reads the observation an insert conflicted
	// with, by the new one's id and digest.
	SQLObservationConflict = `SELECT ` + SQLObservationColumns + ` FROM observations WHERE id = ? OR digest = ? ORDER BY seq LIMIT 1`
	// SQLDeleteObservation deletes an observation when the token hash matches.
	SQLDeleteObservation = `DELETE FROM observations WHERE id = ? AND token_hash = ?`
	// SQLObservationSeq reads the sequence number an insert gave.
	SQLObservationSeq = `SELECT seq FROM observations WHERE id = ?`
)

// SQLObservations returns the statement and arguments that select q's
// observations, in Seq order.
func SQLObservations(q ObservationQuery) (string, []any) {
	var b strings.Builder
	b.WriteString("SELECT " + SQLObservationColumns + " FROM observations WHERE seq > ?")
	args := []any{q.After}
	if q.Engine != "" {
		b.WriteString(" AND engine = ?")
		args = append(args, q.Engine)
	}
	b.WriteString(" ORDER BY seq LIMIT ?")
	return b.String(), append(args, int64(Query{Limit: q.Limit}.limit()))
}

// ObservationArgs returns SQLInsertObservation's arguments for o.
func ObservationArgs(o *Observation) []any {
	reasons, _ := json.Marshal(nonNil(o.Reasons)) // []string always marshals
	return []any{o.ID, o.Digest, o.Engine, o.Model, o.GPU, string(o.Status), string(reasons), o.Created.Unix(),
		o.Client, o.TokenHash, string(o.Document)}
}

// ScanObservation reads one row of SQLObservationColumns.
func ScanObservation(s Scanner) (Observation, error) {
	var o Observation
	var status, reasons, doc string
	var created int64
	err := s.Scan(&o.Seq, &o.ID, &o.Digest, &o.Engine, &o.Model, &o.GPU, &status, &reasons, &created, &o.Client, &o.TokenHash, &doc)
	if err != nil {
		return o, err
	}
	o.Status, o.Created, o.Document = Status(status), time.Unix(created, 0).UTC(), []byte(doc)
	if err := json.Unmarshal([]byte(reasons), &o.Reasons); err != nil {
		return o, fmt.Errorf("store: observation %s: reasons: %w", o.ID, err)
	}
	if len(o.Reasons) == 0 {
		o.Reasons = nil
	}
	return o, nil
}

// CollectObservations reads every row of SQLObservationColumns that a
// query returned. It closes rows.
func CollectObservations(rows *sql.Rows, err error) ([]Observation, error) {
	return collect(rows, err, ScanObservation)
}

// StoredObservation returns o as a read returns it once
// SQLInsertObservation has stored it at seq.
func StoredObservation(o Observation, seq int64) Observation {
	o.Seq, o.Created = seq, time.Unix(o.Created.Unix(), 0).UTC()
	if len(o.Reasons) == 0 {
		o.Reasons = nil
	}
	return o
}
