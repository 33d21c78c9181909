package gpuagenttest

import (
	"testing"
	"time"
)

// Eventually polls cond every 5 ms until it holds, failing the test with
// what once within has passed without it. It is for conditions another
// goroutine makes true (an agent's sender, a client's mapping); within
// bounds a hang, it is not a timing assertion.
func Eventually(t testing.TB, what string, within time.Duration, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(within); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("%s: not within %v", what, within)
		}
	}
}
