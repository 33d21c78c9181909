package sqlite

import (
	"os"
	"syscall"
)

// datasync flushes f's data, and the metadata needed to read it back (its
// size when it grew), to disk: fdatasync(2), which SQLite's own unix VFS
// calls for every sync on Linux (os_unix.c, full_fsync, HAVE_FDATASYNC);
// modernc.org/sqlite's build calls fsync, which also writes back the file's
// times, a journal commit on ext4 for every sync of a log rewritten in
// place.
func datasync(f *os.File) error {
	for {
		err := syscall.Fdatasync(int(f.Fd()))
		if err != syscall.EINTR {
			return err
		}
	}
}
