package cuda

import (
	"runtime"
	"sync"
	"testing"
	"time"
)

func startHandoff() *handoff {
	h := &handoff{}
	h.init()
	go func() {
		runtime.LockOSThread()
		h.serve()
	}()
	return h
}

func TestHandoffRunsInOrderAndCloses(t *testing.T) {
	h := startHandoff()
	var got []int
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.do(func() { got = append(got, i) })
		}()
	}
	wg.Wait()
	if len(got) != 50 {
		t.Errorf("ran %d jobs, want 50", len(got))
	}
	time.Sleep(2 * serveSpin) // let the server park, then wake it
	ran := false
	h.do(func() { ran = true })
	h.close()
	if err := h.do(func() {}); err != ErrClosed || !ran {
		t.Errorf("after close: do = %v, ran = %v; want ErrClosed, true", err, ran)
	}
}

// BenchmarkHandoff is the cost one driver call pays to reach the thread.
func BenchmarkHandoff(b *testing.B) {
	h := startHandoff()
	defer h.close()
	for b.Loop() {
		h.do(func() {})
	}
}

// TestHandoffParks covers the caller's park path: a job longer than the
// caller's spin window.
func TestHandoffParks(t *testing.T) {
	h := startHandoff()
	defer h.close()
	for range 5 {
		h.do(func() { time.Sleep(2 * waitSpin) })
	}
}
