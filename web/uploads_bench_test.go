package web_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/calibrations/community"
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/catalog"
	"github.com/vramplan/vramplan/web"
	"github.com/vramplan/vramplan/web/store"
	"github.com/vramplan/vramplan/web/store/sqlite"
)

// BenchmarkUploads sends b.N distinct uploads, each what `gpuagent
// calibrate` wrote on the H200 (its notes and command in full, the context
// figure varied), from 32 clients over loopback HTTP to the app on SQLite,
// into one group: every one is checked, compared with the group, stored
// durably and answered 201. It reports uploads/s (the closed loop's rate),
// the 50th and 99th percentiles of one upload's latency, and the CPU time
// the process spent per upload (getrusage: the server and the 32 clients
// together, the background refresh of the group and the garbage collector
// included), which on an idle machine of N cores bounds the rate at N /
// CPU per upload.
//
// Run it with -benchtime=4000x or more: a run of a few uploads measures the
// first uploads of a new group, each of which reads the group afresh.
func BenchmarkUploads(b *testing.B) {
	s := newServer(b, web.UploadOptions{PerClientHour: 1 << 40, DailyCap: 1 << 40})
	srv := httptest.NewServer(s.h)
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	docs := make([][]byte, b.N)
	for i := range docs {
		docs[i] = calibrateDoc(b, i)
	}
	var next atomic.Int64
	lat := make([]time.Duration, b.N)
	var wg sync.WaitGroup
	b.ResetTimer()
	start, cpu0, w0 := time.Now(), cpuTime(), s.st.Stats()
	for range 32 {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < b.N; i = int(next.Add(1) - 1) {
				t0 := time.Now()
				resp, err := client.Post(srv.URL+"/api/uploads", "application/json", bytes.NewReader(docs[i]))
				if err != nil {
					b.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				lat[i] = time.Since(t0)
				if resp.StatusCode != http.StatusCreated {
					b.Errorf("upload %d: %d", i, resp.StatusCode)
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed, cpu := time.Since(start), cpuTime()-cpu0
	b.StopTimer()
	report(b, lat, elapsed, cpu)
	reportWriter(b, w0, s.st.Stats())
}

// report reports the rate of the accepted uploads, whose latencies are
// lat, the 50th and 99th percentiles of lat, and the CPU per upload.
func report(b *testing.B, lat []time.Duration, elapsed, cpu time.Duration) {
	slices.Sort(lat)
	b.ReportMetric(float64(len(lat))/elapsed.Seconds(), "uploads/s")
	if len(lat) > 0 {
		b.ReportMetric(ms(lat[len(lat)*99/100]), "p99-ms")
		b.ReportMetric(ms(lat[len(lat)/2]), "p50-ms")
	}
	if cpu > 0 {
		b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/upload")
	}
}

// reportWriter reports what the store's writer did between two of its
// Stats: writes per upload, writes per batch (one commit each), a write's
// mean wait for its batch to begin, and a batch's mean commit, the fsync
// of the log included.
func reportWriter(b *testing.B, w0, w sqlite.Stats) {
	writes, batches := float64(w.Writes-w0.Writes), float64(w.Batches-w0.Batches)
	if writes == 0 || batches == 0 {
		return
	}
	b.ReportMetric(writes/float64(b.N), "writes/upload")
	b.ReportMetric(writes/batches, "writes/batch")
	b.ReportMetric(ms(w.Waiting-w0.Waiting)/writes, "wait-ms/write")
	b.ReportMetric(ms(w.Committing-w0.Committing)/batches, "commit-ms/batch")
}

// BenchmarkUploadsAtRate offers the uploads of BenchmarkUploads at a fixed
// rate, open loop: upload i is sent at start + i/rate whatever the others'
// progress, and its latency counts from that time, so a server that falls
// behind shows it in the percentiles (no coordinated omission) and in the
// achieved rate. A server offered more than it can commit refuses the
// excess with 503 and Retry-After (the store's bounded queue): those are
// counted as refused, not accepted, and left out of the percentiles, which
// are of the accepted uploads. Before the uploads it measures the disk's
// floor at the same rate (diskFloor, floorWrites writes) and reports it as
// disk-p50-ms and disk-p99-ms: what a durable upload costs on this disk
// with nothing else to do, against which the uploads' percentiles are
// read. Run it with -benchtime=3000x or more (30 s at 100/s).
func BenchmarkUploadsAtRate(b *testing.B) {
	for _, rate := range floorRates {
		b.Run(rateName(rate), func(b *testing.B) { uploadsAtRate(b, rate) })
	}
}

func rateName(rate int) string { return fmt.Sprintf("%d-per-s", rate) }

// floorWrites is the writes of the disk's floor measured before each run
// of BenchmarkUploadsAtRate: 10 s at 100/s, and a p99 of 10 writes.
const floorWrites = 1000

func uploadsAtRate(b *testing.B, rate int) {
	s := newServer(b, web.UploadOptions{PerClientHour: 1 << 40, DailyCap: 1 << 40})
	srv := httptest.NewServer(s.h)
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}}
	docs := make([][]byte, b.N)
	for i := range docs {
		docs[i] = calibrateDoc(b, i)
	}
	lat := make([]time.Duration, b.N)
	var refused, failed atomic.Int64
	var wg sync.WaitGroup
	floor50, floor99, err := diskFloor(b.TempDir(), rate, floorWrites, floorWrite, datasync)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	start, cpu0, w0 := time.Now(), cpuTime(), s.st.Stats()
	for i := range b.N {
		due := start.Add(time.Duration(i) * time.Second / time.Duration(rate))
		time.Sleep(time.Until(due))
		wg.Go(func() {
			lat[i] = -1
			resp, err := client.Post(srv.URL+"/api/uploads", "application/json", bytes.NewReader(docs[i]))
			if err != nil {
				if failed.Add(1) == 1 {
					b.Error(err)
				}
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			switch {
			case resp.StatusCode == http.StatusCreated:
				lat[i] = time.Since(due)
			case resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") != "":
				refused.Add(1)
			case failed.Add(1) == 1:
				b.Errorf("upload %d: %d", i, resp.StatusCode)
			}
		})
	}
	wg.Wait()
	elapsed, cpu := time.Since(start), cpuTime()-cpu0
	b.StopTimer()
	if n := failed.Load(); n > 0 {
		b.Fatalf("%d uploads failed", n)
	}
	report(b, slices.DeleteFunc(lat, func(d time.Duration) bool { return d < 0 }), elapsed, cpu)
	b.ReportMetric(float64(refused.Load()), "refused")
	reportWriter(b, w0, s.st.Stats())
	b.ReportMetric(ms(floor50), "disk-p50-ms")
	b.ReportMetric(ms(floor99), "disk-p99-ms")
}

// calibrateDoc returns the n-th distinct upload as gpuagent calibrate
// writes it: the measured H200 file, notes and command whole, its context
// figure n pages larger.
func calibrateDoc(b *testing.B, n int) []byte {
	b.Helper()
	c, err := calibrations.Lookup("h200-linux-cuda13.0")
	if err != nil {
		b.Fatal(err)
	}
	c.Context += planner.Bytes(n) * 4096
	return calibrations.Format(&c)
}

// BenchmarkCommunityList times GET /api/community, GET /api/calibrations
// and the calibrations page over 100,000 stored uploads in 20 groups, after
// the first request has computed the aggregates (the first request's time
// is reported apart).
func BenchmarkCommunityList(b *testing.B) {
	path := filepath.Join(b.TempDir(), "uploads.db")
	load(b, path, 100000, 20)
	st, err := sqlite.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	h := web.New(web.Deps{Models: catalog.All, Calibrations: calibrations.All, Store: st})
	get := func(url string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, url, nil))
		if rec.Code != http.StatusOK {
			b.Fatalf("GET %s = %d %s", url, rec.Code, rec.Body)
		}
	}
	t0 := time.Now()
	get("/api/community")
	b.ReportMetric(float64(time.Since(t0).Milliseconds()), "first-ms")
	for _, url := range []string{"/api/community", "/api/calibrations", "/calibrations"} {
		b.Run(url, func(b *testing.B) {
			for b.Loop() {
				get(url)
			}
		})
	}
}

// load stores n uploads in groups groups straight into a fresh database,
// in one transaction: each group's checked document, with its context
// figure varied.
func load(b *testing.B, path string, n, groups int) {
	b.Helper()
	st, err := sqlite.Open(path) // migrates
	if err != nil {
		b.Fatal(err)
	}
	st.Close()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	tx, err := db.BeginTx(context.Background(), nil)
	if err != nil {
		b.Fatal(err)
	}
	stmt, err := tx.Prepare(store.SQLInsertUpload)
	if err != nil {
		b.Fatal(err)
	}
	base, _ := calibrations.Lookup("h200-linux-cuda13.0")
	checked := make([]community.Checked, groups)
	for g := range checked {
		c := base
		c.CUDA = fmt.Sprintf("13.%d", g) // one group per CUDA version
		var err error
		if checked[g], err = community.Check(calibrations.Format(&c)); err != nil {
			b.Fatal(err)
		}
	}
	for i := range n {
		ch := checked[i%groups]
		figures := maps.Clone(ch.Figures)
		figures[community.FigContext] += float64(i%1000) * 4096
		digest := fmt.Sprintf("%064x", i)
		u := store.Upload{ID: digest[44:], Digest: digest, Group: ch.Group.String(), Status: store.StatusAccepted,
			Created: time.Unix(1764583200, 0), TokenHash: "x", Figures: figures, Document: ch.Document}
		if _, err := stmt.Exec(store.InsertArgs(&u)...); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
}
