// Package fsutil writes files so that no reader ever sees half of one, and
// opens files to read so that no FIFO holds the reader.
package fsutil

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// WriteFileAtomic replaces path with data through a temporary file in the
// same folder, synced to disk and renamed over path, so that a reader sees
// the old file or the new one, never part of one. The file gets exactly
// perm (see Perm to keep an existing file's). Like os.WriteFile it does not
// make the folder.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	return WriteFileAtomicIf(path, data, perm, nil)
}

// WriteFileAtomicIf is WriteFileAtomic with a last check: check, when not
// nil, runs once the new content is on disk, just ahead of the rename; if
// it returns an error, path is left as it was and the error is returned
// (to not replace a file that changed since it was read, say).
func WriteFileAtomicIf(path string, data []byte, perm os.FileMode, check func() error) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	defer os.Remove(name) // a no-op once renamed
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if check != nil {
		if err := check(); err != nil {
			return err
		}
	}
	return os.Rename(name, path)
}

// Rewrite writes data over the file at path in place, keeping the file
// itself (its inode): a read-only bind an agent's sandbox holds over it
// stays on it, where a rename would put a new file in its place and drop
// the bind. Only the bytes from the first that differs are written, then
// the file is cut to the new length and synced; a reader may see a mix
// for that moment, so it is for files read by the console under its own
// lock (the policy). A missing file is made as WriteFileAtomic makes it.
func Rewrite(path string, data []byte, perm os.FileMode) error {
	f, err := os.OpenFile(path, os.O_RDWR|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return WriteFileAtomic(path, data, perm)
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return &fs.PathError{Op: "write", Path: path, Err: ErrNotRegular}
	}
	old, err := io.ReadAll(f)
	if err != nil {
		return err
	}
	i := 0
	for i < len(old) && i < len(data) && old[i] == data[i] {
		i++
	}
	if _, err := f.WriteAt(data[i:], int64(i)); err != nil {
		return err
	}
	if err := f.Truncate(int64(len(data))); err != nil {
		return err
	}
	return f.Sync()
}

// Perm is the permission bits of the file at path (through links), or def
// when there is none to read them from.
func Perm(path string, def os.FileMode) os.FileMode {
	if fi, err := os.Stat(path); err == nil {
		return fi.Mode().Perm()
	}
	return def
}

// ErrNotRegular: the path names a FIFO, a device, a socket or a folder.
var ErrNotRegular = errors.New("not a regular file")

// OpenRegular opens a regular file for reading without waiting: a FIFO an
// agent put in a file's place would otherwise hold the reader until a
// writer came. Anything but a regular file is refused (ErrNotRegular).
func OpenRegular(path string, flags ...int) (*os.File, error) {
	mode := os.O_RDONLY | syscall.O_NONBLOCK
	for _, f := range flags {
		mode |= f
	}
	f, err := os.OpenFile(path, mode, 0)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: ErrNotRegular}
	}
	return f, nil
}

// ErrOutside: a path leads, through links, out of the folder it must stay in.
var ErrOutside = errors.New("leads outside the folder")

// Within returns path with its links followed (as far as it exists: a file
// still to be made is joined to its real folder) if the result stays in
// root (its own links followed too); else an error wrapping ErrOutside.
// The console writes into an agent's folder through it: an agent can make
// any name there a link to a file of teamlead's or the human's.
func Within(root, path string) (string, error) {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		realRoot = filepath.Clean(root)
	}
	real := filepath.Clean(path)
	for p, rest := real, ""; ; {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			real = filepath.Join(r, rest)
			break
		}
		parent := filepath.Dir(p)
		if parent == p {
			break
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
	if real != realRoot && !strings.HasPrefix(real, realRoot+string(filepath.Separator)) {
		return "", fmt.Errorf("%s %w %s (it leads to %s)", path, ErrOutside, root, real)
	}
	return real, nil
}

// ReadRegular reads path if it is a regular file, without waiting on a
// FIFO put in its place (OpenRegular).
func ReadRegular(path string) ([]byte, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// ReadHead reads at most the first n bytes of path, a regular file
// (OpenRegular, with flags: syscall.O_NOFOLLOW, say). For the files the
// console reads where an agent writes: a sparse file of gigabytes, or a
// link to /dev/zero, would otherwise fill the console's memory.
func ReadHead(path string, n int64, flags ...int) ([]byte, error) {
	f, err := OpenRegular(path, flags...)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, n))
}
