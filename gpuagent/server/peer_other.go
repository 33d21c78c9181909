//go:build !linux

package server

import "net"

// unixPeer names every Unix peer alike: this platform's peer credentials
// are not read here, so the per-peer cap counts the socket as one peer.
func unixPeer(*net.UnixConn) string { return "unix" }
