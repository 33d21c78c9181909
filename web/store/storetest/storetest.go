// Package storetest is the conformance suite of store.Store: every
// implementation (SQLite natively, D1 in the worker) runs Run against fresh
// stores of its own.
package storetest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vramplan/vramplan/web/store"
)

// Run runs the suite. open returns a new, empty store for each subtest;
// Run closes it.
func Run(t *testing.T, open func(t *testing.T) store.Store) {
	tests := []struct {
		name string
		f    func(*testing.T, store.Store)
	}{
		{"PutGet", testPutGet}, {"Duplicate", testDuplicate}, {"Delete", testDelete},
		{"Uploads", testUploads}, {"Groups", testGroups}, {"Aggregates", testAggregates},
		{"Hit", testHit}, {"Setting", testSetting}, {"Large", testLarge},
		{"ConcurrentPut", testConcurrentPut}, {"ConcurrentHit", testConcurrentHit},
		{"ConcurrentDelete", testConcurrentDelete},
		{"Admit", testAdmit}, {"ConcurrentAdmit", testConcurrentAdmit},
		{"ObservationPutGet", testObservationPutGet}, {"ObservationDuplicate", testObservationDuplicate},
		{"ObservationDelete", testObservationDelete}, {"Observations", testObservations},
		{"ConcurrentObservations", testConcurrentObservations},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := open(t)
			defer s.Close()
			tt.f(t, s)
		})
	}
}

// Upload returns a distinct, valid upload for n in group, accepted, with
// the deletion token "token-<n>".
func Upload(n int, group string) store.Upload {
	doc := fmt.Sprintf(`{"n": %d, "group": %q, "note": "naïve — ✓"}`, n, group)
	sum := sha256.Sum256([]byte(doc))
	digest := hex.EncodeToString(sum[:])
	return store.Upload{
		ID: "u" + digest[:16], Digest: digest, Group: group, Status: store.StatusAccepted,
		Created:   time.Date(2026, 12, 1, 10, 0, n%60, 0, time.UTC),
		Client:    fmt.Sprintf("client-%d", n%7),
		TokenHash: TokenHash(fmt.Sprintf("token-%d", n)),
		Figures:   map[string]float64{"context_bytes": float64(500<<20 + n), "vmm.commit.2097152.p50_us": 36.5},
		Document:  []byte(doc),
	}
}

// TokenHash is the hash a store keeps of a deletion token.
func TokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

var ctx = context.Background()

func put(t *testing.T, s store.Store, u store.Upload, wantNew bool) store.Upload {
	t.Helper()
	got, created, err := s.Put(ctx, u)
	if err != nil {
		t.Fatalf("Put(%s): %v", u.ID, err)
	}
	if created != wantNew {
		t.Fatalf("Put(%s) created = %v, want %v", u.ID, created, wantNew)
	}
	return got
}

func testPutGet(t *testing.T, s store.Store) {
	u := Upload(1, "g1")
	u.Status, u.Reasons = store.StatusHeld, []string{"context_bytes 9 MiB is 60× the group's median"}
	got := put(t, s, u, true)
	if got.Seq <= 0 {
		t.Errorf("Put.Seq = %d, want > 0", got.Seq)
	}
	want := u
	want.Seq = got.Seq
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Put = %+v\nwant %+v", got, want)
	}
	back, err := s.Get(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, got) {
		t.Errorf("Get = %+v\nwant %+v", back, got)
	}
	if _, err := s.Get(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Get(nope) = %v, want ErrNotFound", err)
	}
	bare := Upload(2, "g1")
	bare.Reasons, bare.Figures = nil, nil
	got = put(t, s, bare, true)
	if back, _ := s.Get(ctx, bare.ID); !reflect.DeepEqual(back, got) || got.Reasons != nil || got.Figures != nil {
		t.Errorf("an upload without reasons or figures: Put = %+v, Get = %+v", got, back)
	}
}

func testDuplicate(t *testing.T, s store.Store) {
	first := put(t, s, Upload(1, "g"), true)
	again := Upload(1, "g")
	again.TokenHash, again.Client = TokenHash("another"), "someone-else"
	if got := put(t, s, again, false); !reflect.DeepEqual(got, first) {
		t.Errorf("Put(same id) = %+v, want the first %+v", got, first)
	}
	sameDigest := Upload(1, "g")
	sameDigest.ID = "other-id"
	if got := put(t, s, sameDigest, false); got.ID != first.ID {
		t.Errorf("Put(same digest, new id).ID = %q, want %q", got.ID, first.ID)
	}
	if _, err := s.Get(ctx, "other-id"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Get(other-id) = %v, want ErrNotFound: a duplicate must not be stored", err)
	}
	if us, _ := s.Uploads(ctx, store.Query{}); len(us) != 1 {
		t.Errorf("Uploads after duplicates = %d uploads, want 1", len(us))
	}
}

func testDelete(t *testing.T, s store.Store) {
	u := put(t, s, Upload(1, "g"), true)
	if err := s.Delete(ctx, u.ID, TokenHash("wrong")); !errors.Is(err, store.ErrToken) {
		t.Errorf("Delete(wrong token) = %v, want ErrToken", err)
	}
	if _, err := s.Get(ctx, u.ID); err != nil {
		t.Errorf("Get after a refused Delete: %v", err)
	}
	if err := s.Delete(ctx, u.ID, TokenHash("token-1")); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if _, err := s.Get(ctx, u.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Get after Delete = %v, want ErrNotFound", err)
	}
	if err := s.Delete(ctx, u.ID, TokenHash("token-1")); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("second Delete = %v, want ErrNotFound", err)
	}
	if err := s.Delete(ctx, "missing", TokenHash("x")); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Delete(missing) = %v, want ErrNotFound", err)
	}
	again := put(t, s, Upload(1, "g"), true)
	if again.Seq <= u.Seq {
		t.Errorf("re-upload after Delete: Seq %d, want > %d (sequence numbers are never reused)", again.Seq, u.Seq)
	}
}

func testUploads(t *testing.T, s store.Store) {
	var all []store.Upload
	for i := range 10 {
		u := Upload(i, []string{"a", "b"}[i%2])
		if i%3 == 0 {
			u.Status = store.StatusHeld
		}
		all = append(all, put(t, s, u, true))
	}
	check := func(q store.Query, want func(store.Upload) bool) {
		t.Helper()
		got, err := s.Uploads(ctx, q)
		if err != nil {
			t.Fatalf("Uploads(%+v): %v", q, err)
		}
		var ids, wantIDs []string
		for _, u := range got {
			ids = append(ids, u.ID)
		}
		for _, u := range all {
			if u.Seq > q.After && want(u) && (q.Limit == 0 || len(wantIDs) < q.Limit) {
				wantIDs = append(wantIDs, u.ID)
			}
		}
		if !reflect.DeepEqual(ids, wantIDs) {
			t.Errorf("Uploads(%+v) = %v, want %v", q, ids, wantIDs)
		}
	}
	every := func(store.Upload) bool { return true }
	check(store.Query{}, every)
	check(store.Query{Limit: 3}, every)
	check(store.Query{After: all[4].Seq, Limit: 3}, every)
	check(store.Query{After: all[9].Seq}, every)
	check(store.Query{Group: "a"}, func(u store.Upload) bool { return u.Group == "a" })
	check(store.Query{Status: store.StatusHeld}, func(u store.Upload) bool { return u.Status == store.StatusHeld })
	check(store.Query{Group: "b", Status: store.StatusAccepted},
		func(u store.Upload) bool { return u.Group == "b" && u.Status == store.StatusAccepted })
	brief, err := s.Uploads(ctx, store.Query{Brief: true, Limit: 1})
	if err != nil || len(brief) != 1 {
		t.Fatalf("Uploads(brief) = %v, %v", brief, err)
	}
	if brief[0].Document != nil || !reflect.DeepEqual(brief[0].Figures, all[0].Figures) {
		t.Errorf("Uploads(brief) = document %q, figures %v; want no document and %v", brief[0].Document, brief[0].Figures, all[0].Figures)
	}
}

func groups(t *testing.T, s store.Store) map[string]store.Group {
	t.Helper()
	gs, err := s.Groups(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]store.Group{}
	for i, g := range gs {
		if i > 0 && gs[i-1].Key >= g.Key {
			t.Errorf("Groups not sorted by key: %q before %q", gs[i-1].Key, g.Key)
		}
		out[g.Key] = g
	}
	return out
}

func testGroups(t *testing.T, s store.Store) {
	if gs := groups(t, s); len(gs) != 0 {
		t.Errorf("Groups of an empty store = %v", gs)
	}
	a1 := put(t, s, Upload(1, "a"), true)
	held := Upload(2, "a")
	held.Status = store.StatusHeld
	put(t, s, held, true)
	put(t, s, Upload(3, "b"), true)
	g := groups(t, s)
	if g["a"].Accepted != 1 || g["a"].Held != 1 || g["b"].Accepted != 1 || len(g) != 2 {
		t.Fatalf("Groups = %+v, want a: 1 accepted 1 held, b: 1 accepted", g)
	}
	v := g["a"].Version
	put(t, s, Upload(1, "a"), false)
	if got := groups(t, s)["a"].Version; got != v {
		t.Errorf("a duplicate Put moved the version %d → %d", v, got)
	}
	if err := s.Delete(ctx, a1.ID, TokenHash("wrong")); !errors.Is(err, store.ErrToken) {
		t.Fatal(err)
	}
	if got := groups(t, s)["a"].Version; got != v {
		t.Errorf("a refused Delete moved the version %d → %d", v, got)
	}
	if err := s.Delete(ctx, a1.ID, TokenHash("token-1")); err != nil {
		t.Fatal(err)
	}
	g = groups(t, s)
	if g["a"].Version <= v || g["a"].Accepted != 0 || g["a"].Held != 1 {
		t.Errorf("after Delete: %+v, want version > %d, 0 accepted, 1 held", g["a"], v)
	}
	if err := s.Delete(ctx, Upload(3, "b").ID, TokenHash("token-3")); err != nil {
		t.Fatal(err)
	}
	if _, ok := groups(t, s)["b"]; ok {
		t.Errorf("a group whose uploads were all deleted is still listed")
	}
}

func testAggregates(t *testing.T, s store.Store) {
	put(t, s, Upload(1, "a"), true)
	v := groups(t, s)["a"].Version
	if g := groups(t, s)["a"]; g.Aggregate != nil {
		t.Errorf("an aggregate before any was stored: %q", g.Aggregate)
	}
	for _, step := range []struct {
		version int64
		doc     string
		want    string
	}{{v, `{"v":1}`, `{"v":1}`}, {v - 1, `{"old":true}`, `{"v":1}`}, {v, `{"same":true}`, `{"v":1}`}, {v + 5, `{"v":6}`, `{"v":6}`}} {
		if err := s.PutAggregate(ctx, "a", step.version, []byte(step.doc)); err != nil {
			t.Fatal(err)
		}
		g := groups(t, s)["a"]
		if string(g.Aggregate) != step.want {
			t.Errorf("after PutAggregate(%d, %s): %s, want %s", step.version, step.doc, g.Aggregate, step.want)
		}
	}
	if g := groups(t, s)["a"]; g.AggregateVersion != v+5 || g.Version != v {
		t.Errorf("Groups = version %d, aggregate version %d; want %d, %d", g.Version, g.AggregateVersion, v, v+5)
	}
}

func hit(t *testing.T, s store.Store, key string, win, want int64) {
	t.Helper()
	n, err := s.Hit(ctx, key, win)
	if err != nil || n != want {
		t.Errorf("Hit(%q, %d) = %d, %v; want %d", key, win, n, err, want)
	}
}

func hitCount(t *testing.T, s store.Store, key string, win, want int64) {
	t.Helper()
	n, err := s.HitCount(ctx, key, win)
	if err != nil || n != want {
		t.Errorf("HitCount(%q, %d) = %d, %v; want %d", key, win, n, err, want)
	}
}

func testHit(t *testing.T, s store.Store) {
	hitCount(t, s, "c1", 100, 0)
	hit(t, s, "c1", 100, 1)
	hit(t, s, "c1", 100, 2)
	hit(t, s, "c1", 100, 3)
	hitCount(t, s, "c1", 100, 3)
	hitCount(t, s, "c1", 100, 3) // reading counts nothing
	hit(t, s, "c2", 100, 1)
	hit(t, s, "c1", 101, 1)
	if err := s.Sweep(ctx, 101); err != nil {
		t.Fatal(err)
	}
	hitCount(t, s, "c1", 100, 0)
	hit(t, s, "c1", 100, 1)
	hit(t, s, "c1", 101, 2)
	hitCount(t, s, "c1", 101, 2)
	hitCount(t, s, "c3", 101, 0)
}

func testSetting(t *testing.T, s store.Store) {
	var wg sync.WaitGroup
	got := make([]string, 8)
	for i := range got {
		wg.Go(func() {
			v, err := s.Setting(ctx, "salt", fmt.Sprintf("proposal-%d", i))
			if err != nil {
				t.Error(err)
			}
			got[i] = v
		})
	}
	wg.Wait()
	for _, v := range got {
		if v != got[0] || !strings.HasPrefix(v, "proposal-") {
			t.Fatalf("concurrent first Setting calls = %q, want one proposal for all", got)
		}
	}
	if v, _ := s.Setting(ctx, "salt", "later"); v != got[0] {
		t.Errorf("Setting after the first = %q, want %q", v, got[0])
	}
	if v, _ := s.Setting(ctx, "other", "x"); v != "x" {
		t.Errorf("Setting(other) = %q, want x", v)
	}
}

func testLarge(t *testing.T, s store.Store) {
	u := Upload(1, "g")
	u.Document = []byte(`{"notes":"` + strings.Repeat("é✓ ", 64<<10/6) + `"}`)
	u.Reasons = []string{strings.Repeat("r", 2000), "quote \" and newline \n"}
	put(t, s, u, true)
	got, err := s.Get(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Document) != string(u.Document) || !reflect.DeepEqual(got.Reasons, u.Reasons) {
		t.Errorf("a 64 KiB document or long reasons did not round-trip")
	}
}

// testConcurrentPut has 16 writers put 40 uploads each, every upload by two
// writers: each id must be stored once and reported new exactly once.
func testConcurrentPut(t *testing.T, s store.Store) {
	const writers, each = 16, 40
	var mu sync.Mutex
	created := map[string]int{}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				n := (w/2)*each + i
				u, isNew, err := s.Put(ctx, Upload(n, fmt.Sprintf("g%d", n%3)))
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				created[u.ID] += map[bool]int{true: 1}[isNew]
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	const unique = writers / 2 * each
	all, err := s.Uploads(ctx, store.Query{Limit: store.MaxLimit})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != unique || len(created) != unique {
		t.Fatalf("stored %d uploads (%d ids answered), want %d", len(all), len(created), unique)
	}
	for id, n := range created {
		if n != 1 {
			t.Errorf("upload %s reported new %d times", id, n)
		}
	}
	var sum int64
	for _, g := range groups(t, s) {
		sum += g.Accepted
	}
	if sum != unique {
		t.Errorf("groups count %d accepted uploads, want %d", sum, unique)
	}
}

func testConcurrentHit(t *testing.T, s store.Store) {
	const workers, each = 8, 50
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range each {
				if _, err := s.Hit(ctx, "k", 7); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	hit(t, s, "k", 7, workers*each+1)
}

// testConcurrentDelete races deletes of the same upload: one wins.
func testConcurrentDelete(t *testing.T, s store.Store) {
	u := put(t, s, Upload(1, "g"), true)
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := 0
	for range 8 {
		wg.Go(func() {
			err := s.Delete(ctx, u.ID, TokenHash("token-1"))
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				t.Error(err)
			}
			mu.Lock()
			wins += map[bool]int{true: 1}[err == nil]
			mu.Unlock()
		})
	}
	wg.Wait()
	if wins != 1 {
		t.Errorf("%d concurrent deletes succeeded, want 1", wins)
	}
	if g, ok := groups(t, s)["g"]; ok {
		t.Errorf("group after the delete: %+v, want none", g)
	}
}
