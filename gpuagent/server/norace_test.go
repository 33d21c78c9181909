//go:build !race

package server_test

// raceEnabled says the race detector is on.
const raceEnabled = false
