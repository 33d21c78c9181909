package web_test

// This file times the phases of each upload in BenchmarkUploadsAtRate, to
// say where the slow ones (the 99th percentile and above) spent their time:
// the sender's lag behind the scheduled time, the client and connection
// until the handler runs, the handler before the store, the store's write
// (queue, batch, commit and sync together), the handler after it, and the
// way back to the client.

import (
	"context"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/planner/catalog"
	"github.com/vramplan/vramplan/web"
	"github.com/vramplan/vramplan/web/store"
	"github.com/vramplan/vramplan/web/store/sqlite"
)

// phaseMarks are one upload's timestamps, in order.
type phaseMarks struct {
	due, sent, arrived, admitIn, admitOut, handled, answered time.Time
}

// phaseNames name the spans between consecutive marks.
var phaseNames = []string{"lag", "to-handler", "before-store", "store", "after-store", "to-client"}

func (m *phaseMarks) spans() []time.Duration {
	t := []time.Time{m.due, m.sent, m.arrived, m.admitIn, m.admitOut, m.handled, m.answered}
	d := make([]time.Duration, len(t)-1)
	for i := range d {
		d[i] = t[i+1].Sub(t[i])
	}
	return d
}

type benchIndexKey struct{}

// phased wraps a handler so that each request carrying X-Bench-Upload
// marks its arrival and its end in marks.
func phased(h http.Handler, marks []phaseMarks) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i, err := strconv.Atoi(r.Header.Get("X-Bench-Upload"))
		if err != nil {
			h.ServeHTTP(w, r)
			return
		}
		marks[i].arrived = time.Now()
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), benchIndexKey{}, i)))
		marks[i].handled = time.Now()
	})
}

// phasedStore is a store whose Admit marks when the upload's write began
// and returned.
type phasedStore struct {
	*sqlite.Store
	marks []phaseMarks
}

func (s phasedStore) Admit(ctx context.Context, limits []store.Limit, u *store.Upload) (store.Admission, error) {
	i, ok := ctx.Value(benchIndexKey{}).(int)
	if ok {
		s.marks[i].admitIn = time.Now()
	}
	adm, err := s.Store.Admit(ctx, limits, u)
	if ok {
		s.marks[i].admitOut = time.Now()
	}
	return adm, err
}

// reportPhases reports the mean of each phase over the uploads whose
// latency (answered − due) is at the 99th percentile or above, and over
// the median ones (p45–p55), as <phase>-p99-ms and <phase>-p50-ms.
func reportPhases(b *testing.B, marks []phaseMarks) {
	marks = slices.DeleteFunc(slices.Clone(marks), func(m phaseMarks) bool { return m.answered.IsZero() || m.admitOut.IsZero() })
	if len(marks) < 100 {
		return
	}
	slices.SortFunc(marks, func(x, y phaseMarks) int {
		return int(x.answered.Sub(x.due) - y.answered.Sub(y.due))
	})
	mean := func(ms []phaseMarks, p int) float64 {
		var sum time.Duration
		for _, m := range ms {
			sum += m.spans()[p]
		}
		return float64(sum.Microseconds()) / 1000 / float64(len(ms))
	}
	n := len(marks)
	for p, name := range phaseNames {
		b.ReportMetric(mean(marks[n*99/100:], p), name+"-p99-ms")
		b.ReportMetric(mean(marks[n*45/100:n*55/100], p), name+"-p50-ms")
	}
}

// newPhasedServer is newServer for the benchmarks, with no rate limits in
// reach and the store's writes marked in marks.
func newPhasedServer(b *testing.B, marks []phaseMarks) *server {
	b.Helper()
	st, err := sqlite.Open(filepath.Join(b.TempDir(), "uploads.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	s := &server{now: time.Date(2026, 12, 1, 10, 30, 0, 0, time.UTC), st: st}
	opts := web.UploadOptions{PerClientHour: 1 << 40, DailyCap: 1 << 40, Now: func() time.Time { return s.now }}
	s.h = web.New(web.Deps{Models: catalog.All, Calibrations: calibrations.All, Store: phasedStore{st, marks}, Uploads: opts})
	return s
}
