//go:build race

package server_test

// raceEnabled says the race detector is on: it allocates in code that
// otherwise does not, so allocation counts mean nothing then.
const raceEnabled = true
