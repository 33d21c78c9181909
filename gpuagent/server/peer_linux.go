package server

import (
	"net"
	"syscall"
)

// unixPeer names the client behind c by the uid the kernel gives
// (SO_PEERCRED).
func unixPeer(c *net.UnixConn) string {
	raw, err := c.SyscallConn()
	if err != nil {
		return "unix"
	}
	var cred *syscall.Ucred
	raw.Control(func(fd uintptr) {
		cred, err = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	})
	if err != nil || cred == nil {
		return "unix"
	}
	return uidPeer(cred.Uid)
}
