package web_test

import (
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
)

// BenchmarkDiskFloor measures what the disk alone gives a durable upload,
// with no HTTP, no checks and no SQLite: the floor under the p99 that
// BenchmarkUploadsAtRate measures. See diskFloor. It flushes with
// fdatasync, the disk's own floor, and with fsync, which SQLite's unix VFS
// calls in modernc.org/sqlite's build (os_unix.c, full_fsync) and which on
// ext4 also writes back the file's times.
func BenchmarkDiskFloor(b *testing.B) {
	for _, sync := range []struct {
		name string
		f    func(*os.File) error
	}{{"fdatasync", datasync}, {"fsync", (*os.File).Sync}} {
		for _, rate := range floorRates {
			b.Run(sync.name+"/"+rateName(rate), func(b *testing.B) {
				p50, p99, err := diskFloor(b.TempDir(), rate, b.N, floorWrite, sync.f)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(ms(p50), "p50-ms")
				b.ReportMetric(ms(p99), "p99-ms")
			})
		}
	}
}

// floorRates are the rates the disk's floor and the open loop are
// measured at: the target's 100 uploads/s, and its closed loop's 300.
var floorRates = []int{100, 300}

// floorWrite is the bytes one upload adds to the store's log, about: its
// row, its index entries and the group's counters, in 4 KiB pages.
const floorWrite = 16 << 10

// floorFile is the size of diskFloor's file, which it writes around: the
// store's log, too, is written again from its start once checkpointed.
const floorFile = 32 << 20

// diskFloor offers n writes of size bytes each at rate, open loop, into a
// file in dir written whole beforehand, and answers each once a flush
// (sync) that began after its write has returned, one flush at a time: the
// store's group commit, each write waiting for the commit under way and
// then its own. It returns the p50 and p99 of the writes' latencies,
// counted from when each was due.
func diskFloor(dir string, rate, n, size int, sync func(*os.File) error) (p50, p99 time.Duration, err error) {
	f, err := os.Create(filepath.Join(dir, "floor"))
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	if _, err := f.WriteAt(make([]byte, floorFile), 0); err != nil {
		return 0, 0, err
	}
	if err := f.Sync(); err != nil {
		return 0, 0, err
	}
	fl := &floor{f: f, sync: sync, due: make([]time.Time, n), lat: make([]time.Duration, n), wake: make(chan struct{}, 1)}
	done := make(chan error, 1)
	go func() { done <- fl.syncer(n) }()
	buf := make([]byte, size)
	start := time.Now()
	for i := range n {
		due := start.Add(time.Duration(i) * time.Second / time.Duration(rate))
		time.Sleep(time.Until(due))
		if _, err := f.WriteAt(buf, int64(i*size%(floorFile-size))); err != nil {
			return 0, 0, err
		}
		fl.mu.Lock()
		fl.due[i], fl.written = due, i+1
		fl.mu.Unlock()
		select {
		case fl.wake <- struct{}{}:
		default:
		}
	}
	if err := <-done; err != nil {
		return 0, 0, err
	}
	slices.Sort(fl.lat)
	return fl.lat[n/2], fl.lat[n*99/100], nil
}

// A floor is diskFloor's state: the writes made, and when each was due.
type floor struct {
	f       *os.File
	sync    func(*os.File) error
	wake    chan struct{}
	mu      sync.Mutex
	written int
	due     []time.Time
	lat     []time.Duration
}

// syncer flushes the writes made so far, one flush at a time, until n are
// answered.
func (fl *floor) syncer(n int) error {
	for answered := 0; answered < n; {
		fl.mu.Lock()
		upto := fl.written
		fl.mu.Unlock()
		if upto == answered {
			<-fl.wake
			continue
		}
		if err := fl.sync(fl.f); err != nil {
			return err
		}
		now := time.Now()
		fl.mu.Lock()
		for i := answered; i < upto; i++ {
			fl.lat[i] = now.Sub(fl.due[i])
		}
		fl.mu.Unlock()
		answered = upto
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
