package queryfiles

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/teamlead/teamlead/internal/fsutil"
)

// maxFileSize bounds what is read; query files are a few KiB.
const maxFileSize = 1 << 20

// errChanged: the file changed between reading it and replacing it.
var errChanged = errors.New("the file changed while it was being updated")

// ErrNotRegular: the path names a folder, a device or a FIFO, not a file.
var ErrNotRegular = fsutil.ErrNotRegular

// ReadFile reads a regular file of at most maxFileSize bytes, with its mode.
func ReadFile(path string) ([]byte, fs.FileMode, error) {
	f, err := fsutil.OpenRegular(path) // a FIFO in the queries folder must not hold the watcher
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err == nil && len(data) > maxFileSize {
		err = fmt.Errorf("%s is larger than %d MiB; query files are small", path, maxFileSize>>20)
	}
	return data, fi.Mode().Perm(), err
}

// writeAtomic replaces path with data through a temporary file in the same
// folder and a rename, so that a reader sees the old or the new file, never
// part of one. When before is not nil, the file must still hold exactly
// before just ahead of the rename, else errChanged and nothing is replaced.
func writeAtomic(path string, data []byte, perm fs.FileMode, before []byte) error {
	if before == nil {
		return fsutil.WriteFileAtomic(path, data, perm)
	}
	return fsutil.WriteFileAtomicIf(path, data, perm, func() error {
		now, _, err := ReadFile(path)
		if err != nil {
			return err
		}
		if !bytes.Equal(now, before) {
			return errChanged
		}
		return nil
	})
}
