package server

// This file is the bearer token a TCP listener requires. A loopback port
// is reachable by every user of the machine (and a Unix socket only by
// those its permission admits), so gpuagent serve refuses TCP without a
// token: every request over TCP must carry "Authorization: Bearer TOKEN",
// compared in constant time. The token is read from a file only its owner
// can read, like an ssh key, so it never appears in a process list.

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/vramplan/vramplan/gpuagent/wire"
)

// Token bounds: long enough not to be guessed, short enough for a header.
const (
	MinToken = 16
	MaxToken = 1024
)

// ReadTokenFile reads a bearer token from path: a regular file that
// neither its group nor others may read or write, holding one token of
// MinToken to MaxToken visible ASCII characters, optionally followed by a
// newline. Every refusal says what to fix.
func ReadTokenFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--token-file: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("--token-file: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("--token-file %s: not a regular file", path)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return nil, fmt.Errorf("--token-file %s: mode %#o lets other users read or change the token; chmod 600 it", path, uint32(perm))
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxToken+3))
	if err != nil {
		return nil, fmt.Errorf("--token-file %s: %w", path, err)
	}
	return parseToken(path, data)
}

func parseToken(path string, data []byte) ([]byte, error) {
	tok := bytes.TrimSuffix(bytes.TrimSuffix(data, []byte("\n")), []byte("\r"))
	if len(tok) < MinToken || len(tok) > MaxToken {
		return nil, fmt.Errorf("--token-file %s: a token of %d bytes; want %d to %d (for instance: openssl rand -hex 32 > %s)",
			path, len(tok), MinToken, MaxToken, path)
	}
	for i, c := range tok {
		if c <= ' ' || c > '~' {
			return nil, fmt.Errorf("--token-file %s: byte %d is %#x; a token is one line of visible ASCII characters", path, i, c)
		}
	}
	return tok, nil
}

// tokenCheck compares bearer tokens in time that depends on neither the
// token nor the guess: both are hashed first, so even their lengths are
// not compared.
type tokenCheck [sha256.Size]byte

func newTokenCheck(tok []byte) *tokenCheck {
	if len(tok) == 0 {
		return nil
	}
	c := tokenCheck(sha256.Sum256(tok))
	return &c
}

// allows reports whether r carries the token.
func (c *tokenCheck) allows(r *http.Request) bool {
	scheme, guess, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	sum := sha256.Sum256([]byte(guess))
	return subtle.ConstantTimeCompare(sum[:], c[:]) == 1 && strings.EqualFold(scheme, "Bearer")
}

// refuse answers a request without the token.
func (c *tokenCheck) refuse(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("WWW-Authenticate", `Bearer realm="gpuagent"`)
	w.Header().Set("Connection", "close")
	what := "no bearer token"
	if r.Header.Get("Authorization") != "" {
		what = "a wrong bearer token"
	}
	reply(w, wire.Errorf(wire.CodeUnauthorized, "%s: this agent's TCP listener requires Authorization: Bearer <the token in its --token-file>", what))
}
