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
	"runtime/trace"
	"slices"
	"strconv"
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
// durably and answered 201. It reports uploads/s, the 50th and 99th
// percentiles of one upload's latency, and the CPU time the process spent
// per upload (getrusage: the server and the 32 clients together, the
// background refresh of the group and the garbage collector included),
// which on an idle machine of N cores bounds the rate at N / CPU per upload.
// The garbage collector runs as `vramplan serve` sets it (web.TuneGC).
//
// Run it with -benchtime=4000x or more: a run of a few uploads measures the
// first uploads of a new group, each of which reads the group afresh.
func BenchmarkUploads(b *testing.B) {
	defer web.TuneGC()() // as vramplan serve runs
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
	slices.Sort(lat)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "uploads/s")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	// The process's CPU per upload, server and client together: on a
	// machine with N idle cores the rate cannot pass N / cpu-µs.
	if cpu > 0 {
		b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/upload")
	}
	reportWriter(b, w0, s.st.Stats())
}

// reportWriter reports where the store's writes spent their time between
// two of its Stats: writes per upload, writes per batch (one commit each),
// a write's mean wait for its batch to run it, a batch's mean time running
// its writes and committing them, the mean fsync of the log by the
// syncer (on Linux; elsewhere the commit holds the fsync), and the
// writer's checkpoints that start the log again, with their time summed.
func reportWriter(b *testing.B, w0, w sqlite.Stats) {
	writes, batches := float64(w.Writes-w0.Writes), float64(w.Batches-w0.Batches)
	if writes == 0 || batches == 0 {
		return
	}
	ms := func(d time.Duration, n float64) float64 { return float64(d.Microseconds()) / 1000 / n }
	b.ReportMetric(writes/float64(b.N), "writes/upload")
	b.ReportMetric(writes/batches, "writes/batch")
	b.ReportMetric(ms(w.Waiting-w0.Waiting, writes), "wait-ms/write")
	b.ReportMetric(ms(w.Running-w0.Running, batches), "run-ms/batch")
	b.ReportMetric(ms(w.Committing-w0.Committing, batches), "commit-ms/batch")
	if syncs := float64(w.Syncs - w0.Syncs); syncs > 0 {
		b.ReportMetric(ms(w.Syncing-w0.Syncing, syncs), "fsync-ms")
	}
	// The writer's stalls while the log starts again: how many, and the
	// time it ran no write in them, summed.
	b.ReportMetric(float64(w.Restarts-w0.Restarts), "restarts")
	b.ReportMetric(ms(w.Restarting-w0.Restarting, 1), "restart-ms")
}

// BenchmarkUploadsAtRate offers the uploads of BenchmarkUploads at a fixed
// rate, open loop: upload i is sent at start + i/rate whatever the others'
// progress, and its latency counts from that time, so a server that falls
// behind shows it in the percentiles (no coordinated omission) and in the
// achieved rate. It answers the pair of budgets together: whether
// 2,000 uploads/s are accepted, and the p99 of one upload while they are.
// A server offered more than it can commit refuses the excess with 503 and
// Retry-After (the store's bounded queue): those are counted as refused,
// not accepted, and left out of the percentiles, which are of the accepted
// uploads. Before the uploads it measures the disk's floor at the same
// rate for two seconds (diskFloor) and reports it as disk-p50-ms and
// disk-p99-ms: what a durable upload costs on this disk with nothing else
// to do, against which the uploads' percentiles are read. Run it with
// -benchtime=10000x or more (5 s at 2,000/s).
func BenchmarkUploadsAtRate(b *testing.B) {
	for _, rate := range []int{1000, 2000} {
		b.Run(rateName(rate), func(b *testing.B) { uploadsAtRate(b, rate) })
	}
}

func rateName(rate int) string { return fmt.Sprintf("%d-per-s", rate) }

func uploadsAtRate(b *testing.B, rate int) {
	defer web.TuneGC()() // as vramplan serve runs
	marks := make([]phaseMarks, b.N)
	s := newPhasedServer(b, marks)
	srv := httptest.NewServer(phased(s.h, marks))
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}}
	docs := make([][]byte, b.N)
	for i := range docs {
		docs[i] = calibrateDoc(b, i)
	}
	lat := make([]time.Duration, b.N)
	var refused, failed atomic.Int64
	var wg sync.WaitGroup
	floor50, floor99, err := diskFloor(b.TempDir(), rate, 2*rate, floorWrite)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	start, cpu0, w0, sched0, disk0 := time.Now(), cpuTime(), s.st.Stats(), schedLatencies(), diskWritten()
	for i := range b.N {
		due := start.Add(time.Duration(i) * time.Second / time.Duration(rate))
		time.Sleep(time.Until(due))
		wg.Go(func() {
			lat[i] = -1
			marks[i].due, marks[i].sent = due, time.Now()
			req, _ := http.NewRequest(http.MethodPost, srv.URL+"/api/uploads", bytes.NewReader(docs[i]))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-Bench-Upload", strconv.Itoa(i))
			resp, err := client.Do(req)
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
				marks[i].answered = time.Now()
				lat[i] = marks[i].answered.Sub(due)
				logSlow(lat[i])
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
	lat = slices.DeleteFunc(lat, func(d time.Duration) bool { return d < 0 })
	if n := failed.Load(); n > 0 {
		b.Fatalf("%d uploads failed", n)
	}
	slices.Sort(lat)
	b.ReportMetric(float64(len(lat))/elapsed.Seconds(), "uploads/s")
	b.ReportMetric(float64(refused.Load()), "refused")
	if len(lat) > 0 {
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	}
	if cpu > 0 {
		b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/upload")
	}
	reportWriter(b, w0, s.st.Stats())
	reportPhases(b, marks)
	reportSched(b, sched0, schedLatencies())
	if disk := diskWritten() - disk0; disk > 0 && len(lat) > 0 {
		b.ReportMetric(float64(disk)/1024/float64(len(lat)), "disk-KiB/upload") // per accepted upload
	}
	b.ReportMetric(ms(floor50), "disk-p50-ms")
	b.ReportMetric(ms(floor99), "disk-p99-ms")
}

// logSlow logs an upload slower than the 5 ms in the execution
// trace, when one is recorded (-test.trace): its latency in nanoseconds, at
// the time it was answered, so that what ran while it waited can be found
// in the trace.
func logSlow(lat time.Duration) {
	if trace.IsEnabled() && lat > 5*time.Millisecond {
		trace.Log(context.Background(), "slow upload", strconv.FormatInt(int64(lat), 10))
	}
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
