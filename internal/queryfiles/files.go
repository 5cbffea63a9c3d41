package queryfiles

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/teamlead/teamlead/internal/fsutil"
)

// maxFileSize bounds what is read; query files are a few KiB.
const maxFileSize = 1 << 20

// errChanged: the file changed between reading it and replacing it.
var errChanged = errors.New("the file changed while it was being updated")

// ErrNotRegular: the path names a folder, a device or a FIFO, not a file.
var ErrNotRegular = fsutil.ErrNotRegular

// ErrLinked: a query file, its folder or the folder above is a link. The
// watcher reads as the human what an agent's folder names: a link there
// led it into files the agent's sandbox hides, and its parse errors told
// the agent what they held (red team 12a, finding 6).
var ErrLinked = errors.New("is a symbolic link, or lies in a folder that is one; query files are read where they are, never through a link")

// ReadFile reads a regular file of at most maxFileSize bytes, with its
// mode; never through a link (ErrLinked).
func ReadFile(path string) ([]byte, fs.FileMode, error) {
	if err := inLinkedFolder("open", path); err != nil {
		return nil, 0, err
	}
	f, err := fsutil.OpenRegular(path, syscall.O_NOFOLLOW) // a FIFO in the queries folder must not hold the watcher
	if errors.Is(err, syscall.ELOOP) {
		return nil, 0, &fs.PathError{Op: "open", Path: path, Err: ErrLinked}
	}
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

// inLinkedFolder is an error wrapping ErrLinked when path's folder, or the
// folder above, is a link.
func inLinkedFolder(op, path string) error {
	for _, dir := range []string{filepath.Dir(path), filepath.Dir(filepath.Dir(path))} {
		if st, err := os.Lstat(dir); err == nil && st.Mode()&fs.ModeSymlink != 0 {
			return &fs.PathError{Op: op, Path: path, Err: ErrLinked}
		}
	}
	return nil
}

// writeAtomic replaces path with data through a temporary file in the same
// folder and a rename, so that a reader sees the old or the new file, never
// part of one. When before is not nil, the file must still hold exactly
// before just ahead of the rename, else errChanged and nothing is replaced.
func writeAtomic(path string, data []byte, perm fs.FileMode, before []byte) error {
	// A response comes long after its query was read: the agent may have
	// made its folder a link since, to one its sandbox keeps read-only.
	if err := inLinkedFolder("write", path); err != nil {
		return err
	}
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
