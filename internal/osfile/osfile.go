// Package osfile opens and reads the files a user names for the model
// readers: regular files only, read through a limit. A device, a FIFO or a
// directory — or a symbolic link to one — is refused before it is opened
// (opening a FIFO waits for a writer; /dev/zero never ends and reports size
// 0), and a file that grows past its limit while it is read is refused
// rather than read whole.
package osfile

import (
	"fmt"
	"io"
	"os"
)

// Open opens path for reading when it is a regular file, following
// symbolic links, and returns it with its size, taken from the open file.
func Open(path string) (*os.File, int64, error) {
	if fi, err := os.Stat(path); err != nil {
		return nil, 0, err
	} else if !fi.Mode().IsRegular() {
		return nil, 0, notRegular(path, fi)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = notRegular(path, fi)
	}
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, fi.Size(), nil
}

func notRegular(path string, fi os.FileInfo) error {
	kind := "a directory"
	if !fi.IsDir() {
		kind = "a " + fi.Mode().Type().String() + " file"
	}
	return fmt.Errorf("%s is not a regular file (%s)", path, kind)
}

// ReadFile reads the regular file at path, refusing one of more than limit
// bytes, whatever its size said when it was opened.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, size, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if size > limit {
		return nil, fmt.Errorf("%s: %d bytes is more than %d", path, size, limit)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(data)) > limit {
		err = fmt.Errorf("%s: more than %d bytes", path, limit)
	}
	return data, err
}
