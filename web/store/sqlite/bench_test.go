package sqlite_test

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/vramplan/vramplan/web/store/storetest"
)

// BenchmarkPut puts distinct uploads from 32 goroutines: group commit's
// throughput on this disk.
func BenchmarkPut(b *testing.B) {
	s := open(b, filepath.Join(b.TempDir(), "b.db"))
	defer s.Close()
	var n atomic.Int64
	b.SetParallelism(16)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, _, err := s.Put(context.Background(), storetest.Upload(int(n.Add(1)), "g")); err != nil {
				b.Error(err)
			}
		}
	})
}

func BenchmarkHit(b *testing.B) {
	s := open(b, filepath.Join(b.TempDir(), "b.db"))
	defer s.Close()
	b.SetParallelism(16)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := s.Hit(context.Background(), "k", 1); err != nil {
				b.Error(err)
			}
		}
	})
}
