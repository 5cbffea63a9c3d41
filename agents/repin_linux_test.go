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
