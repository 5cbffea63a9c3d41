package control

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// A console or node learns what its sandboxes keep from the others' from
// the registry, and the others learn it from its record and its protect
// request. Done one after the other, two starting together could each
// miss the other (red team 14c, finding 1: a node's agents read another
// node's --nats-file). Enter serializes the two steps that matter,
// writing one's record and reading the others', under one lock: of two
// starters, the second to take it reads the first's record, whose socket
// already serves protect, and asks it afterwards.

// LockWait bounds the wait for the registry's lock: its holders keep it
// for a few file operations.
const LockWait = 15 * time.Second

// lockName is the lock file in the registry folder (neither a console's
// .json nor a node's .node). Every sandbox hides it (Hidden): an agent
// that held it would stop every start.
const lockName = "start.lock"

// ErrRegistryLocked means the registry's lock was held for longer than
// LockWait.
var ErrRegistryLocked = errors.New("the registry of consoles is locked")

// LockFile is the registry's lock file.
func LockFile() (string, error) {
	dir, err := RegistryDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, lockName), nil
}

// Enter takes the registry's lock (for up to wait), runs write (which
// records this console or node; its socket must serve protect already),
// then read (which reads what its sandboxes keep from the others'), and
// lets go. read runs even when write failed, whose error Enter returns.
// A holder that dies lets go with its descriptor, and a record of a dead
// process is read as one that does not answer (Live).
func Enter(wait time.Duration, write func() error, read func()) error {
	unlock, err := lockRegistry(wait)
	if err != nil {
		return err
	}
	defer unlock()
	werr := write()
	read()
	return werr
}

// lockRegistry takes the registry's lock, waiting up to wait.
func lockRegistry(wait time.Duration) (unlock func(), err error) {
	path, err := LockFile()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("the registry of consoles: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("the registry's lock: %w", err)
	}
	for deadline := time.Now().Add(wait); ; {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil // closing lets go
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("the registry's lock %s: %w", path, err)
		}
		if time.Now().After(deadline) {
			holder := lockHolder(f)
			f.Close()
			return nil, fmt.Errorf("%w: %s was held for more than %v (%s); a console or node starting holds it for a moment only: if that process is not one, stop it, then start again", ErrRegistryLocked, path, wait, holder)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// lockHolder names the process that holds f's lock, from /proc/locks.
func lockHolder(f *os.File) string {
	var st syscall.Stat_t
	if syscall.Fstat(int(f.Fd()), &st) != nil {
		return "held by a process not known"
	}
	b, _ := os.ReadFile("/proc/locks")
	suffix := ":" + strconv.FormatUint(st.Ino, 10)
	for _, line := range strings.Split(string(b), "\n") {
		fields := strings.Fields(line)
		// "1: FLOCK ADVISORY WRITE PID MAJ:MIN:INODE 0 EOF"; waiters have "->".
		if len(fields) < 6 || fields[1] != "FLOCK" || !strings.HasSuffix(fields[5], suffix) {
			continue
		}
		cmd, _ := os.ReadFile("/proc/" + fields[4] + "/cmdline")
		return "held by pid " + fields[4] + ": " + strings.TrimSpace(strings.ReplaceAll(string(cmd), "\x00", " "))
	}
	return "held by a process not known"
}
