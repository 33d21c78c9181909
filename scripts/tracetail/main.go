// Command tracetail reads an execution trace of BenchmarkUploadsAtRate
// (web/uploads_bench_test.go, run with -test.trace) and says what ran while
// the slow uploads waited: the uploads the benchmark logged as slower than
// 5 ms, the share of the processors' time each kind of goroutine took
// inside their waits against its share of the whole trace, the garbage
// collections and the gaps in which no goroutine ran at all, and each
// kind's bursts (running, system calls that return included, until it
// blocks or is preempted): a goroutine that runs long on short system calls
// never reschedules, and the timers and goroutines queued on its processor
// wait for it.
//
// It is its own module, so that the vramplan module does not depend on the
// trace parser:
//
//	cd web && go test -run='^$' -bench='UploadsAtRate/2000' -benchtime=10000x -trace=/tmp/up.trace
//	cd scripts/tracetail && go run . /tmp/up.trace
//
// A goroutine's kind is the outermost function of its first stack seen.
package main

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"

	"golang.org/x/exp/trace"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: tracetail TRACE")
		os.Exit(2)
	}
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "tracetail:", err)
		os.Exit(1)
	}
	defer f.Close()
	t, err := read(f)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tracetail:", err)
		os.Exit(1)
	}
	t.report(os.Stdout)
}

// A span is an interval of the trace's clock, in nanoseconds.
type span struct{ from, to trace.Time }

func (s span) overlap(o span) trace.Time { return max(0, min(s.to, o.to)-max(s.from, o.from)) }

// A run is one goroutine's time on a processor, of one kind.
type run struct {
	span
	kind string
}

// A tally is what read found.
type tally struct {
	first, last trace.Time
	runs        []run                // by start
	bursts      map[string][]float64 // milliseconds, by kind
	slow, gcs   []span
}

// read reads a whole trace.
func read(r io.Reader) (*tally, error) {
	tr, err := trace.NewReader(r)
	if err != nil {
		return nil, err
	}
	t := &tally{bursts: map[string][]float64{}}
	kind := map[trace.GoID]string{}
	running, burst := map[trace.GoID]trace.Time{}, map[trace.GoID]trace.Time{}
	var gc trace.Time
	for {
		ev, err := tr.ReadEvent()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if t.first == 0 {
			t.first = ev.Time()
		}
		t.last = ev.Time()
		switch ev.Kind() {
		case trace.EventLog:
			if l := ev.Log(); l.Category == "slow upload" {
				if ns, err := strconv.ParseInt(l.Message, 10, 64); err == nil {
					t.slow = append(t.slow, span{ev.Time() - trace.Time(ns), ev.Time()})
				}
			}
		case trace.EventRangeBegin:
			if ev.Range().Name == "GC concurrent mark phase" {
				gc = ev.Time()
			}
		case trace.EventRangeEnd:
			if ev.Range().Name == "GC concurrent mark phase" && gc != 0 {
				t.gcs, gc = append(t.gcs, span{gc, ev.Time()}), 0
			}
		case trace.EventStateTransition:
			t.transition(ev, kind, running, burst)
		}
	}
	slices.SortFunc(t.runs, func(a, b run) int { return cmp.Compare(a.from, b.from) })
	return t, nil
}

// transition records a goroutine's change of state.
func (t *tally) transition(ev trace.Event, kind map[trace.GoID]string, running, burst map[trace.GoID]trace.Time) {
	st := ev.StateTransition()
	if st.Resource.Kind != trace.ResourceGoroutine {
		return
	}
	id := st.Resource.Goroutine()
	from, to := st.Goroutine()
	if kind[id] == "" {
		kind[id] = cmp.Or(outermost(st.Stack), outermost(ev.Stack()))
	}
	if to == trace.GoRunning {
		running[id] = ev.Time()
		if from != trace.GoSyscall {
			burst[id] = ev.Time()
		}
	}
	if from == trace.GoRunning {
		if s, ok := running[id]; ok {
			t.runs = append(t.runs, run{span{s, ev.Time()}, kind[id]})
			delete(running, id)
		}
	}
	if (from == trace.GoRunning || from == trace.GoSyscall) && to != trace.GoRunning && to != trace.GoSyscall {
		if s, ok := burst[id]; ok {
			t.bursts[kind[id]] = append(t.bursts[kind[id]], ms(ev.Time()-s))
			delete(burst, id)
		}
	}
}

func outermost(st trace.Stack) string {
	last := ""
	for f := range st.Frames() {
		last = f.Func
	}
	return last
}

func ms(d trace.Time) float64 { return float64(d) / 1e6 }

// report writes what t found.
func (t *tally) report(w io.Writer) {
	fmt.Fprintf(w, "trace: %.2f s, %d uploads logged slower than 5 ms\n", ms(t.last-t.first)/1000, len(t.slow))
	t.reportGaps(w)
	t.reportSlow(w)
	t.reportBursts(w)
}

// reportGaps lists the gaps of 2 ms or more in which no goroutine ran.
func (t *tally) reportGaps(w io.Writer) {
	var gaps []span
	var reach trace.Time
	for _, r := range t.runs {
		if reach != 0 && r.from-reach >= 2e6 {
			gaps = append(gaps, span{reach, r.from})
		}
		reach = max(reach, r.to)
	}
	hit := 0
	for _, s := range t.slow {
		if slices.ContainsFunc(gaps, func(g span) bool { return g.overlap(s) > 0 }) {
			hit++
		}
	}
	fmt.Fprintf(w, "gaps of 2 ms or more with nothing running: %d; slow uploads waiting across one: %d\n", len(gaps), hit)
	for _, g := range gaps {
		fmt.Fprintf(w, "  at %.3f s: %.2f ms\n", ms(g.from-t.first)/1000, ms(g.to-g.from))
	}
}

// reportSlow writes each kind's share of the processors' time inside the
// slow uploads' waits, against its share of the whole trace.
func (t *tally) reportSlow(w io.Writer) {
	if len(t.slow) == 0 {
		return
	}
	inGC := 0
	var waited trace.Time
	within, whole := map[string]trace.Time{}, map[string]trace.Time{}
	for _, r := range t.runs {
		whole[r.kind] += r.to - r.from
	}
	for _, s := range t.slow {
		waited += s.to - s.from
		if slices.ContainsFunc(t.gcs, func(g span) bool { return g.overlap(s) > 0 }) {
			inGC++
		}
		end, _ := slices.BinarySearchFunc(t.runs, s.to, func(r run, at trace.Time) int { return cmp.Compare(r.from, at) })
		for _, r := range t.runs[:end] {
			within[r.kind] += r.overlap(s)
		}
	}
	fmt.Fprintf(w, "slow uploads: %d waited across a collection's marking (%d collections)\n", inGC, len(t.gcs))
	fmt.Fprintf(w, "processor time inside the slow uploads' waits (all processors: N x 100%%), and in the whole trace:\n")
	kinds := sortedBy(within)
	for _, k := range kinds[:min(12, len(kinds))] {
		fmt.Fprintf(w, "  %6.1f%%  (whole %5.1f%%)  %s\n", 100*float64(within[k])/float64(waited), 100*float64(whole[k])/float64(t.last-t.first), k)
	}
}

// reportBursts writes the bursts of each kind with more than 20.
func (t *tally) reportBursts(w io.Writer) {
	fmt.Fprintf(w, "bursts (running until it blocks or is preempted, returning system calls included), by kind:\n")
	kinds := make([]string, 0, len(t.bursts))
	for k := range t.bursts {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	for _, k := range kinds {
		b := t.bursts[k]
		if len(b) <= 20 {
			continue
		}
		slices.Sort(b)
		i, _ := slices.BinarySearch(b, 1)
		fmt.Fprintf(w, "  %7d  p99 %7.3f ms  max %7.2f ms  1 ms or more: %5d  %s\n", len(b), b[len(b)*99/100], b[len(b)-1], len(b)-i, k)
	}
}

func sortedBy(m map[string]trace.Time) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.SortFunc(ks, func(a, b string) int { return cmp.Compare(m[b], m[a]) })
	return ks
}
