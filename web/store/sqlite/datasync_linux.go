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

// writeBack starts writing f's dirty pages to disk and returns without
// waiting for them or flushing the disk's cache: sync_file_range(2) with
// SYNC_FILE_RANGE_WRITE. It makes no write durable; a later fdatasync or
// fsync has that much less to write.
func writeBack(f *os.File) error {
	const syncFileRangeWrite = 2 // SYNC_FILE_RANGE_WRITE, linux/fs.h
	for {
		err := syscall.SyncFileRange(int(f.Fd()), 0, 0, syncFileRangeWrite)
		if err != syscall.EINTR {
			return err
		}
	}
}
