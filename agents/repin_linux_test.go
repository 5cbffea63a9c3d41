package agents

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// A descriptor open for writing is seen even when no process holds it:
// sent over a Unix socket and closed by its sender, it waits in the
// socket's queue (red team 10a parked the new teamlead executable so).
func TestUnseenWriterSeesADescriptorInASocket(t *testing.T) {
	p := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(p, []byte("rules: []\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if unseenWriter(p, 0) {
		t.Fatal("a file nobody holds is said to be open for writing")
	}
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(pair[0])
	defer unix.Close(pair[1])
	w, err := unix.Open(p, unix.O_WRONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Sendmsg(pair[0], []byte{1}, unix.UnixRights(w), nil, 0); err != nil {
		t.Fatal(err)
	}
	unix.Close(w)
	if !unseenWriter(p, 50*time.Millisecond) {
		t.Fatal("a descriptor for writing parked in a socket was not seen")
	}
	// Taken out and closed: no writer left.
	buf, oob := make([]byte, 1), make([]byte, unix.CmsgSpace(4))
	_, oobn, _, _, err := unix.Recvmsg(pair[1], buf, oob, 0)
	if err != nil {
		t.Fatal(err)
	}
	fds, err := receivedFDs(oob[:oobn])
	if err != nil || len(fds) != 1 {
		t.Fatalf("received %v, %v", fds, err)
	}
	unix.Close(fds[0])
	if unseenWriter(p, 0) {
		t.Error("the writer was closed, and is still seen")
	}
	// A writer that finishes within the grace (an editor's save) is let be.
	w, err = unix.Open(p, unix.O_WRONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	go func() { time.Sleep(100 * time.Millisecond); unix.Close(w) }()
	if unseenWriter(p, 10*time.Second) {
		t.Error("a writer that closed within the grace is said to stay")
	}
}

// A descriptor that held a protected file and, between two looks, holds
// another one (a git reading its config closes and reuses the number many
// times a second) is not taken as the protected file's: CI killed a git
// for its own read of .git/config, by the mount of the file it opened
// next.
func TestHoldsIsNotFooledByADescriptorReused(t *testing.T) {
	dir := t.TempDir()
	protected, other := filepath.Join(dir, "config"), filepath.Join(dir, "f.txt")
	for _, p := range []string{protected, other} {
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var st unix.Stat_t
	if err := unix.Stat(protected, &st); err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Open(protected, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	// Held through a writable mount (this test's folder): said so.
	if got := holds(os.Getpid(), st.Dev, st.Ino); got == "" {
		t.Fatal("a descriptor of the file through a writable mount is not seen")
	}
	o, err := unix.Open(other, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(o)
	reused := false
	betweenLooks = func() {
		if !reused {
			reused = true
			if err := unix.Dup3(o, fd, unix.O_CLOEXEC); err != nil {
				t.Error(err)
			}
		}
	}
	defer func() { betweenLooks = func() {} }()
	if got := holds(os.Getpid(), st.Dev, st.Ino); got != "" {
		t.Fatalf("a descriptor that now holds another file is said to hold the protected one: %s", got)
	}
	if !reused {
		t.Fatal("the descriptor was never looked at")
	}
}

// A shared writable mapping of the file is seen once its descriptor is
// closed, by its device and inode both.
func TestHoldsSeesASharedWritableMapping(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(p, []byte("xxxx"), 0o600); err != nil {
		t.Fatal(err)
	}
	var st unix.Stat_t
	if err := unix.Stat(p, &st); err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Open(p, unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	m, err := unix.Mmap(fd, 0, 4, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	unix.Close(fd)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	if got := holds(os.Getpid(), st.Dev, st.Ino); got != "mapped for writing" {
		t.Fatalf("holds = %q, want mapped for writing", got)
	}
	if got := holds(os.Getpid(), st.Dev+1, st.Ino); got != "" {
		t.Fatalf("the same inode number on another device: holds = %q", got)
	}
}
