// Package store is the seam between the web app and the database that
// keeps community calibration uploads: the Store interface, the records it
// holds, and the schema as embedded migration files.
//
// Two implementations sit behind it: web/store/sqlite (modernc.org/sqlite,
// the native server's default) and web/store/d1 (Cloudflare D1, in the
// Workers entry). Both run the same SQL: the migrations here and the
// statements in sql.go. D1's Go driver has no transactions, so every write
// this interface asks for is one statement that is safe to repeat: an insert
// that does nothing when the row exists, a delete, an upsert that never moves
// a value backwards. Per-group counts are kept by triggers, inside the
// statement that inserts or deletes an upload. The one write whose repeat is
// not a no-op is Hit, a rate-limit counter, where counting a retried request
// twice errs on the side of the limit.
//
// web/store/storetest holds the conformance suite every implementation must
// pass.
package store

import (
	"context"
	"errors"
	"time"
)

// Status is where a stored upload stands. Rejected uploads are never
// stored, so they have no status here.
type Status string

// The statuses of a stored upload.
const (
	// StatusAccepted uploads count in their group's aggregate (unless the
	// aggregation marks them as outliers).
	StatusAccepted Status = "accepted"
	// StatusHeld uploads contradicted their group when they arrived; they
	// are kept, listed and exported, but not aggregated.
	StatusHeld Status = "held"
)

// Upload is one stored calibration upload.
type Upload struct {
	// Seq is the store's insertion order, assigned by Put; it is never
	// reused, so it is a stable cursor for paging.
	Seq int64 `json:"seq"`
	// ID names the upload in the API; it is derived from Digest, so the same
	// content always gets the same id.
	ID string `json:"id"`
	// Digest is the hex SHA-256 of Document, the canonical content.
	Digest string `json:"digest"`
	// Group is the aggregation group's key.
	Group   string   `json:"group"`
	Status  Status   `json:"status"`
	Reasons []string `json:"reasons,omitempty"` // why it is held
	// Created is when the upload was first stored, to the second.
	Created time.Time `json:"created"`
	// Client is a salted hash of the uploader's address (never the address
	// itself), for rate limits and abuse review. It is not published.
	Client string `json:"-"`
	// TokenHash is the hex SHA-256 of the deletion token handed to the
	// uploader. It is not published.
	TokenHash string `json:"-"`
	// Figures are the numbers aggregation reads, by figure name, extracted
	// from Document when the upload was checked.
	Figures map[string]float64 `json:"figures,omitempty"`
	// Document is the calibration document in canonical form.
	Document []byte `json:"-"`
}

// Query selects uploads for Uploads. Its zero value selects the first
// DefaultLimit uploads of every group and status.
type Query struct {
	After  int64  // only uploads with Seq > After
	Limit  int    // at most this many; 0 means DefaultLimit, capped at MaxLimit
	Group  string // only this group; empty means every group
	Status Status // only this status; empty means both
	// Brief leaves Document out of the results (aggregation reads only
	// Figures).
	Brief bool
}

// Paging limits of Uploads.
const (
	DefaultLimit = 1000
	MaxLimit     = 10000
)

// Group is the state of one aggregation group.
type Group struct {
	Key string `json:"group"`
	// Version grows with every insert or delete in the group.
	Version  int64 `json:"version"`
	Accepted int64 `json:"accepted"`
	Held     int64 `json:"held"`
	// Aggregate is the cached aggregate document stored by PutAggregate, nil
	// when none is; AggregateVersion is the group version it was computed
	// at. It is current when AggregateVersion == Version.
	Aggregate        []byte `json:"-"`
	AggregateVersion int64  `json:"-"`
}

// Store keeps uploads, the groups they form, cached aggregates,
// rate-limit counters and settings. Implementations are safe for concurrent
// use; a write that returned nil is durable.
type Store interface {
	// Put stores u (its Seq is ignored) unless an upload with the same ID or
	// Digest is stored. It returns the stored upload and reports whether
	// this call stored it. Repeating a Put is harmless.
	Put(ctx context.Context, u Upload) (Upload, bool, error)
	// Get returns the upload with the id, or ErrNotFound.
	Get(ctx context.Context, id string) (Upload, error)
	// Delete removes the upload with the id if tokenHash is its TokenHash.
	// It returns ErrNotFound when there is no such upload (deleting twice
	// answers ErrNotFound the second time) and ErrToken when the hash does
	// not match.
	Delete(ctx context.Context, id, tokenHash string) error
	// Uploads returns the uploads q selects, in Seq order.
	Uploads(ctx context.Context, q Query) ([]Upload, error)
	// Groups returns every group with at least one upload, by key, each with
	// its cached aggregate when one is stored.
	Groups(ctx context.Context) ([]Group, error)
	// PutAggregate caches doc as the aggregate of the group at version. A
	// version lower than the one cached is ignored, so a slow writer never
	// replaces a newer aggregate.
	PutAggregate(ctx context.Context, group string, version int64, doc []byte) error
	// Hit counts one event against key in the window (a number the caller
	// derives from the clock, such as Unix seconds / 3600) and returns the
	// window's count, this event included.
	Hit(ctx context.Context, key string, window int64) (int64, error)
	// HitCount returns the window's count for key without counting: a
	// read, so that a request already over its limit is refused without a
	// write.
	HitCount(ctx context.Context, key string, window int64) (int64, error)
	// Sweep forgets the counters of every window below before.
	Sweep(ctx context.Context, before int64) error
	// PutObservation, GetObservation, DeleteObservation and Observations
	// are Put, Get, Delete and Uploads for engine observations
	// (observations.go), which are kept apart from uploads and not grouped.
	PutObservation(ctx context.Context, o Observation) (Observation, bool, error)
	GetObservation(ctx context.Context, id string) (Observation, error)
	DeleteObservation(ctx context.Context, id, tokenHash string) error
	Observations(ctx context.Context, q ObservationQuery) ([]Observation, error)
	// Setting returns the setting name, storing proposed first when it has
	// none, so concurrent first calls all get the value of the one stored.
	Setting(ctx context.Context, name, proposed string) (string, error)
	// Close releases the store; calls after it fail.
	Close() error
}

// Errors of Get and Delete.
var (
	ErrNotFound = errors.New("store: no such upload")
	ErrToken    = errors.New("store: the deletion token does not match")
)
