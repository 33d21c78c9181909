package sqlite

import (
	"context"
	"testing"

	"github.com/vramplan/vramplan/web/store"
	"github.com/vramplan/vramplan/web/store/storetest"
)

// AdmitWrites runs b.N admissions' writes in one transaction of s's
// writing connection, rolled back at the end, and stores the counters after
// each, as the commit of a batch of one upload does.
func AdmitWrites(b *testing.B, s *Store) {
	limits := []store.Limit{{Key: "client:0123456789abcdef0123456789abcdef", Window: 490000, Max: 1 << 40},
		{Key: "global", Window: 490000 * 24, Max: 1 << 40}}
	us := make([]store.Upload, b.N)
	for i := range us {
		us[i] = storetest.Upload(i, "h200-140gib-linux-r580-cuda13.0")
	}
	tx, err := s.write.BeginTx(context.Background(), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.hits.done(false)
	defer tx.Rollback()
	b.ResetTimer()
	for i := range us {
		if err := s.admission(limits, &us[i]).run(tx); err != nil {
			b.Fatal(err)
		}
		if err := s.hits.flush(tx, &s.stmts); err != nil {
			b.Fatal(err)
		}
		s.hits.done(true)
	}
}
