package server

// This file keeps two agents from serving one socket path. Dialing the
// path and, when nothing answers, unlinking it and listening is a race:
// two agents started at once both found nothing, and the second unlinked
// the first one's fresh socket and listened in its place (1 start in 20),
// orphaning the first with its memory and leases. So an agent first takes
// an exclusive lock (flock) on a file beside the socket, PATH.lock, and
// holds it while it serves; the kernel drops it when the process exits,
// however it exits.

import (
	"fmt"
	"net"
	"os"
	"syscall"
)

// A socketLock is the held lock of one socket path.
type socketLock struct {
	f *os.File
}

// lockSocket takes the lock beside the socket at path, or says who holds
// it.
func lockSocket(path string) (*socketLock, error) {
	name := path + ".lock"
	for {
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, fmt.Errorf("--listen unix:%s: the lock file: %w", path, err)
		}
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == syscall.EWOULDBLOCK {
			f.Close()
			return nil, fmt.Errorf("--listen unix:%s: another agent is serving or starting on this socket (it holds %s); stop it or choose another path", path, name)
		}
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("--listen unix:%s: locking %s: %w", path, name, err)
		}
		if current(f, name) {
			return &socketLock{f: f}, nil
		}
		f.Close() // its holder unlinked it as we opened it: take the new one
	}
}

// current reports whether f is still the file at name: a lock released
// by unlinking the file can be won on the unlinked file.
func current(f *os.File, name string) bool {
	held, err := f.Stat()
	if err != nil {
		return false
	}
	now, err := os.Stat(name)
	return err == nil && os.SameFile(held, now)
}

// release unlinks the lock file while it is held, then lets go of it.
func (l *socketLock) release() {
	os.Remove(l.f.Name())
	l.f.Close()
}

// lockedListener is a Unix listener that holds its path's lock until it
// is closed.
type lockedListener struct {
	net.Listener
	lock *socketLock
}

func (l *lockedListener) Close() error {
	err := l.Listener.Close()
	l.lock.release()
	return err
}
