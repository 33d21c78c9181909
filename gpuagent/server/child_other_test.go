//go:build !linux

package server_test

// poolChild exists so TestMain builds where the descriptor test does not.
func poolChild(string) int { return 2 }
