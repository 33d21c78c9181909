package storetest

import (
	"errors"
	"sync"
	"testing"

	"github.com/vramplan/vramplan/web/store"
)

// testAdmit checks store.Admit on s: the limits counted in turn, the upload
// stored only within them, a duplicate answered with the stored upload, and
// a nil upload only counted.
func testAdmit(t *testing.T, s store.Store) {
	limits := []store.Limit{{Key: "client:a", Window: 5, Max: 2}, {Key: "global", Window: 0, Max: 3}}
	admit := func(n int, u *store.Upload, wantOver int, wantCreated bool) store.Admission {
		t.Helper()
		adm, err := store.Admit(ctx, s, limits, u)
		if err != nil || adm.Over != wantOver || adm.Created != wantCreated {
			t.Fatalf("Admit #%d = over %d, created %v, %v; want over %d, created %v", n, adm.Over, adm.Created, err, wantOver, wantCreated)
		}
		return adm
	}
	u1, u2, u3 := Upload(1, "g"), Upload(2, "g"), Upload(3, "g")
	got := admit(1, &u1, -1, true)
	if got.Upload.ID != u1.ID || got.Upload.Seq == 0 {
		t.Errorf("Admit #1 stored %s seq %d, want %s with a sequence number", got.Upload.ID, got.Upload.Seq, u1.ID)
	}
	if dup := admit(2, &u1, -1, false); dup.Upload.ID != u1.ID || dup.Upload.Seq != got.Upload.Seq {
		t.Errorf("Admit of the same upload = %s seq %d, want the stored %s seq %d", dup.Upload.ID, dup.Upload.Seq, u1.ID, got.Upload.Seq)
	}
	admit(3, &u2, 0, false) // the client's third in its window: over its limit of 2
	if _, err := s.Get(ctx, u2.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Get(an upload over its limit) = %v, want ErrNotFound", err)
	}
	// The client's third stopped at its own limit: the global count is 2.
	hit(t, s, "global", 0, 3)
	limits[0].Key = "client:b"
	admit(4, nil, 1, false) // counted only, and the global window's fourth
	limits[1].Window = 24
	admit(5, &u3, -1, true)
	gs, err := s.Groups(ctx)
	if err != nil || len(gs) != 1 || gs[0].Accepted != 2 {
		t.Errorf("Groups() = %+v, %v; want one group of 2 accepted uploads", gs, err)
	}
}

// testConcurrentAdmit has 16 goroutines admit 8 distinct uploads each
// against one limit of 50: exactly 50 are stored.
func testConcurrentAdmit(t *testing.T, s store.Store) {
	limits := []store.Limit{{Key: "client:c", Window: 1, Max: 50}}
	var mu sync.Mutex
	stored, over := 0, 0
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := range 8 {
				u := Upload(g*8+i, "g")
				adm, err := store.Admit(ctx, s, limits, &u)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				if adm.Created {
					stored++
				} else if adm.Over == 0 {
					over++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if stored != 50 || over != 16*8-50 {
		t.Errorf("stored %d and refused %d of %d uploads against a limit of 50; want 50 and %d", stored, over, 16*8, 16*8-50)
	}
	gs, err := s.Groups(ctx)
	if err != nil || len(gs) != 1 || gs[0].Accepted != 50 {
		t.Errorf("Groups() = %+v, %v; want one group of 50 accepted uploads", gs, err)
	}
}
