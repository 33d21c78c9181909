package storetest

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/vramplan/vramplan/web/store"
)

// Observation returns a distinct, valid observation for n of engine,
// accepted, with the deletion token "token-<n>".
func Observation(n int, engine string) store.Observation {
	doc := fmt.Sprintf(`{"n": %d, "engine": %q, "note": "naïve — ✓"}`, n, engine)
	sum := sha256.Sum256([]byte(doc))
	digest := hex.EncodeToString(sum[:])
	return store.Observation{
		ID: "o" + digest[:16], Digest: digest, Engine: engine, Model: fmt.Sprintf("model-%d", n%3), GPU: "NVIDIA H200",
		Status: store.StatusAccepted, Created: time.Date(2026, 12, 1, 11, 0, n%60, 0, time.UTC),
		Client: fmt.Sprintf("client-%d", n%7), TokenHash: TokenHash(fmt.Sprintf("token-%d", n)), Document: []byte(doc),
	}
}

func putObs(t *testing.T, s store.Store, o store.Observation, wantNew bool) store.Observation {
	t.Helper()
	got, created, err := s.PutObservation(ctx, o)
	if err != nil {
		t.Fatalf("PutObservation(%s): %v", o.ID, err)
	}
	if created != wantNew {
		t.Fatalf("PutObservation(%s) created = %v, want %v", o.ID, created, wantNew)
	}
	return got
}

func testObservationPutGet(t *testing.T, s store.Store) {
	o := Observation(1, "llama.cpp")
	o.Status, o.Reasons = store.StatusHeld, []string{"kv is 8 MiB more than the profile computes"}
	got := putObs(t, s, o, true)
	want := o
	want.Seq = got.Seq
	if got.Seq <= 0 || !reflect.DeepEqual(got, want) {
		t.Errorf("PutObservation = %+v\nwant %+v", got, want)
	}
	if back, err := s.GetObservation(ctx, o.ID); err != nil || !reflect.DeepEqual(back, got) {
		t.Errorf("GetObservation = %+v, %v\nwant %+v", back, err, got)
	}
	if _, err := s.GetObservation(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("GetObservation(nope) = %v, want ErrNotFound", err)
	}
	if _, err := s.Get(ctx, o.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Get(an observation's id) = %v, want ErrNotFound: observations are not uploads", err)
	}
	if gs, _ := s.Groups(ctx); len(gs) != 0 {
		t.Errorf("Groups after an observation = %v, want none", gs)
	}
}

func testObservationDuplicate(t *testing.T, s store.Store) {
	first := putObs(t, s, Observation(1, "vllm"), true)
	again := Observation(1, "vllm")
	again.TokenHash, again.Client = TokenHash("another"), "someone-else"
	if got := putObs(t, s, again, false); !reflect.DeepEqual(got, first) {
		t.Errorf("PutObservation(same id) = %+v, want the first %+v", got, first)
	}
	sameDigest := Observation(1, "vllm")
	sameDigest.ID = "other-id"
	if got := putObs(t, s, sameDigest, false); got.ID != first.ID {
		t.Errorf("PutObservation(same digest).ID = %q, want %q", got.ID, first.ID)
	}
	if os, _ := s.Observations(ctx, store.ObservationQuery{}); len(os) != 1 {
		t.Errorf("Observations after duplicates = %d, want 1", len(os))
	}
}

func testObservationDelete(t *testing.T, s store.Store) {
	o := putObs(t, s, Observation(1, "sglang"), true)
	if err := s.DeleteObservation(ctx, o.ID, TokenHash("wrong")); !errors.Is(err, store.ErrToken) {
		t.Errorf("DeleteObservation(wrong token) = %v, want ErrToken", err)
	}
	if err := s.DeleteObservation(ctx, o.ID, TokenHash("token-1")); err != nil {
		t.Fatalf("DeleteObservation: %v", err)
	}
	if _, err := s.GetObservation(ctx, o.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("GetObservation after delete = %v, want ErrNotFound", err)
	}
	if err := s.DeleteObservation(ctx, o.ID, TokenHash("token-1")); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("second DeleteObservation = %v, want ErrNotFound", err)
	}
	if again := putObs(t, s, Observation(1, "sglang"), true); again.Seq <= o.Seq {
		t.Errorf("re-upload after delete: Seq %d, want > %d", again.Seq, o.Seq)
	}
}

func testObservations(t *testing.T, s store.Store) {
	var llama []store.Observation
	for i := range 9 {
		o := putObs(t, s, Observation(i, []string{"llama.cpp", "vllm", "llama.cpp"}[i%3]), true)
		if o.Engine == "llama.cpp" {
			llama = append(llama, o)
		}
	}
	got, err := s.Observations(ctx, store.ObservationQuery{Engine: "llama.cpp", Limit: 4})
	if err != nil || !reflect.DeepEqual(got, llama[:4]) {
		t.Errorf("Observations(llama.cpp, 4) = %v, %v\nwant %v", got, err, llama[:4])
	}
	rest, err := s.Observations(ctx, store.ObservationQuery{Engine: "llama.cpp", After: got[3].Seq})
	if err != nil || !reflect.DeepEqual(rest, llama[4:]) {
		t.Errorf("Observations(after %d) = %v, %v\nwant %v", got[3].Seq, rest, err, llama[4:])
	}
	if all, _ := s.Observations(ctx, store.ObservationQuery{}); len(all) != 9 {
		t.Errorf("Observations() = %d, want 9", len(all))
	}
}

func testConcurrentObservations(t *testing.T, s store.Store) {
	var wg sync.WaitGroup
	created := make([]bool, 16)
	for i := range created {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, created[i], _ = s.PutObservation(ctx, Observation(i%4, "llama.cpp"))
		}()
	}
	wg.Wait()
	n := 0
	for _, c := range created {
		if c {
			n++
		}
	}
	if all, _ := s.Observations(ctx, store.ObservationQuery{}); n != 4 || len(all) != 4 {
		t.Errorf("16 concurrent puts of 4 observations: %d created, %d stored; want 4 and 4", n, len(all))
	}
}
