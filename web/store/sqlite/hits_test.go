package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"math/rand/v2"
	"testing"
)

// storedHits reads the hits table through the read pool.
func storedHits(t *testing.T, s *Store) map[hitKey]int64 {
	t.Helper()
	rows, err := s.read.QueryContext(context.Background(), `SELECT hit_key, win, n FROM hits`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := map[hitKey]int64{}
	for rows.Next() {
		var k hitKey
		var n int64
		if err := rows.Scan(&k.key, &k.win, &n); err != nil {
			t.Fatal(err)
		}
		got[k] = n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestHitsModel commits batches of random counts and sweeps, as the writer
// batches them, and checks every count answered, and the stored counters
// after every commit, against a map: the writer's cache must answer and
// store what counting each event with its own upsert would.
func TestHitsModel(t *testing.T) {
	s, _ := openStore(t)
	rng := rand.New(rand.NewPCG(1, 2))
	model := map[hitKey]int64{}
	for round := range 300 {
		var runs []func(*sql.Tx) error
		var want []int64
		got := make([]int64, 1+rng.IntN(12))
		for i := range got {
			if rng.IntN(10) == 0 {
				before := int64(rng.IntN(5))
				maps.DeleteFunc(model, func(k hitKey, _ int64) bool { return k.win < before })
				runs = append(runs, s.sweep(before))
				want = append(want, -1)
				continue
			}
			k := hitKey{fmt.Sprintf("k%d", rng.IntN(4)), int64(rng.IntN(5))}
			model[k]++
			want = append(want, model[k])
			runs = append(runs, func(tx *sql.Tx) error {
				var err error
				got[i], err = s.hit(tx, k.key, k.win)
				return err
			})
		}
		for i, err := range commitAll(s, runs...) {
			if err != nil {
				t.Fatalf("round %d, write %d: %v", round, i, err)
			}
			if want[i] >= 0 && got[i] != want[i] {
				t.Fatalf("round %d, count %d = %d, want %d", round, i, got[i], want[i])
			}
		}
		if stored := storedHits(t, s); !maps.Equal(stored, model) {
			t.Fatalf("round %d: stored counters %v, want %v", round, stored, model)
		}
	}
}

// TestHitsDropped checks that a batch that did not commit leaves no count
// behind in the cache: the next count is the stored one's successor.
func TestHitsDropped(t *testing.T) {
	s, _ := openStore(t)
	if n, err := s.Hit(context.Background(), "k", 1); err != nil || n != 1 {
		t.Fatalf("Hit = %d, %v; want 1", n, err)
	}
	<-s.ready // the writer is idle once the syncer has answered its batch
	tx, err := s.write.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if n, err := s.hit(tx, "k", 1); err != nil || n != 2 {
		t.Fatalf("a count in the rolled-back batch = %d, %v; want 2", n, err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	s.hits.done(false)
	s.ready <- struct{}{}
	if n, err := s.Hit(context.Background(), "k", 1); err != nil || n != 2 {
		t.Errorf("Hit after a batch that did not commit = %d, %v; want 2", n, err)
	}
}

// TestHitsBounded checks that the cache is dropped after a commit once it
// holds more than maxHits counters.
func TestHitsBounded(t *testing.T) {
	var h hits
	h.n = make(map[hitKey]hitCount, maxHits+1)
	for i := range maxHits + 1 {
		h.n[hitKey{"k", int64(i)}] = hitCount{n: 1}
	}
	h.done(true)
	if len(h.n) != 0 {
		t.Errorf("after a commit the cache holds %d counters, want none past maxHits (%d)", len(h.n), maxHits)
	}
}
