package permit

import (
	"github.com/teamlead/teamlead/internal/fsutil"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
)

// FS is the file system the policy looks paths up on: symbolic links,
// globs and the contents of folders. A nil FS keeps the policy pure (no
// path is looked up; a link is taken for what its name says).
type FS interface {
	// Lstat describes a path without following a final symbolic link.
	Lstat(name string) (fs.FileInfo, error)
	// Readlink returns the target of a symbolic link.
	Readlink(name string) (string, error)
	// ReadDir lists a folder.
	ReadDir(name string) ([]fs.DirEntry, error)
	// ReadFile reads a file (the policy reads at most the first MiB of a
	// credential file, to tell whether a search would print it).
	ReadFile(name string) ([]byte, error)
}

// OSFS is the machine's own file system.
type OSFS struct {
	// Isolate, when set, makes the git the policy runs (history.go) start
	// as an agent's process does (agents.Isolate): the repository's
	// configuration, which an agent can write, may name programs git runs
	// however many of them the policy's options turn off (a partial
	// clone's fetch, a remote helper).
	Isolate func(*exec.Cmd)
}

// Lstat is os.Lstat.
func (OSFS) Lstat(name string) (fs.FileInfo, error) { return os.Lstat(name) }

// Readlink is os.Readlink.
func (OSFS) Readlink(name string) (string, error) { return os.Readlink(name) }

// ReadDir is os.ReadDir.
func (OSFS) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(name) }

// ReadFile reads at most the first MiB of a regular file. Anything else is
// refused without waiting: an agent's FIFO named .env would otherwise hold
// the policy (and every permission request behind it) until a writer came.
func (o OSFS) ReadFile(name string) ([]byte, error) { return o.ReadHead(name, 1<<20) }

// ReadHead reads at most the first n bytes of a regular file, without
// blocking (the policy looks at the start of files for private keys).
func (OSFS) ReadHead(name string, n int) ([]byte, error) {
	f, err := fsutil.OpenRegular(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, int64(n)))
}

// headReader is an FS that can read the start of a file alone.
type headReader interface {
	ReadHead(name string, n int) ([]byte, error)
}

// readHead reads at most the first n bytes of a file through the policy's FS.
func (e Env) readHead(name string, n int) ([]byte, error) {
	if h, ok := e.FS.(headReader); ok {
		return h.ReadHead(name, n)
	}
	b, err := e.FS.ReadFile(name)
	return b[:min(len(b), n)], err
}

// maxLinkHops bounds how many symbolic links one path may go through (the
// kernel's own limit is 40).
const maxLinkHops = 40

// realPath returns where an absolute path really leads: every symbolic
// link on the way is followed, and ".." is taken after the link it follows
// (link/.. is the folder above the link's target, as the kernel has it).
// Parts that do not exist are kept as written. Without an FS the path is
// only cleaned.
func (e Env) realPath(p string) string {
	if e.FS == nil {
		return path.Clean("/" + p)
	}
	queue := splitSegs(p)
	cur := "/"
	hops := 0
	for len(queue) > 0 {
		seg := queue[0]
		queue = queue[1:]
		switch seg {
		case "", ".":
			continue
		case "..":
			cur = path.Dir(cur)
			continue
		}
		next := path.Join(cur, seg)
		fi, err := e.FS.Lstat(next)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		target, err := e.FS.Readlink(next)
		if hops++; err != nil || hops > maxLinkHops {
			cur = next
			continue
		}
		if path.IsAbs(target) {
			cur = "/"
		}
		queue = append(splitSegs(target), queue...)
	}
	return cur
}

func splitSegs(p string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(p); i++ {
		if i == len(p) || p[i] == '/' {
			if i > start {
				out = append(out, p[start:i])
			}
			start = i + 1
		}
	}
	return out
}
