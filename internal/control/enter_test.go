package control

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Of two starts, the second waits for the first to have written its
// record and read the others' (Enter): while one holds the registry's
// lock, another Enter does neither, and says who holds it once its wait
// ends (red team 14c, finding 1: two starting together each read the
// registry before the other was in it).
func TestEnterIsOneAtATime(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	held, release, done := make(chan struct{}), make(chan struct{}), make(chan error)
	go func() {
		done <- Enter(time.Second, func() error { close(held); <-release; return nil }, func() {})
	}()
	<-held
	var wrote, read bool
	err := Enter(100*time.Millisecond, func() error { wrote = true; return nil }, func() { read = true })
	if !errors.Is(err, ErrRegistryLocked) || wrote || read {
		t.Fatalf("a second Enter while the first holds the lock: %v, wrote %v, read %v", err, wrote, read)
	}
	if !strings.Contains(err.Error(), "pid "+strconv.Itoa(os.Getpid())) {
		t.Errorf("the error does not name the holder: %v", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := Enter(time.Second, func() error { wrote = true; return nil }, func() { read = true }); err != nil || !wrote || !read {
		t.Errorf("once let go: %v, wrote %v, read %v", err, wrote, read)
	}
}

// A holder that dies lets go (the kernel drops its flock), and a failed
// write still reads: the start goes on, told why it is not recorded.
func TestEnterAfterAHolderDied(t *testing.T) {
	if _, err := exec.LookPath("flock"); err != nil {
		t.Skip("no flock(1) here")
	}
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	if err := Enter(time.Second, func() error { return nil }, func() {}); err != nil {
		t.Fatal(err) // makes the folder and the lock
	}
	lock, _ := LockFile()
	// -o: flock itself holds it, not the sleep it starts.
	holder := exec.Command("flock", "-o", lock, "sleep", "600")
	holder.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(-holder.Process.Pid, syscall.SIGKILL)
	f, err := os.Open(lock)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for deadline := time.Now().Add(10 * time.Second); syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil; {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		if time.Now().After(deadline) {
			t.Fatal("flock(1) never took the lock")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := Enter(50*time.Millisecond, func() error { return nil }, func() {}); !errors.Is(err, ErrRegistryLocked) || !strings.Contains(err.Error(), "sleep 600") {
		t.Fatalf("while flock(1) holds it: %v", err)
	}
	_ = holder.Process.Kill()
	_ = holder.Wait()
	read := false
	failed := errors.New("no room")
	if err := Enter(5*time.Second, func() error { return failed }, func() { read = true }); !errors.Is(err, failed) || !read {
		t.Errorf("after the holder died: %v, read %v", err, read)
	}
}

// Every sandbox hides the registry's lock: an agent that could open it
// (the registry is shown read-only) could hold it and stop every start.
func TestHiddenHasTheLock(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	lock, _ := LockFile()
	if err := Enter(time.Second, func() error { return nil }, func() {}); err != nil {
		t.Fatal(err)
	}
	if got := Hidden(); !slices.Contains(got, lock) {
		t.Errorf("hidden %v, without the lock %s", got, lock)
	}
}

// Every sandbox hides the user's own credentials in the home: ~/.netrc
// (red team 16a, finding 8).
func TestHiddenHasTheNetrc(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	home := t.TempDir()
	t.Setenv("HOME", home)
	netrc := filepath.Join(home, ".netrc")
	if err := os.WriteFile(netrc, []byte("machine example.com password x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := Hidden(); !slices.Contains(got, netrc) {
		t.Errorf("hidden %v, without %s", got, netrc)
	}
}

// A node's record keeps the folders its earlier runs on the same state
// hid while they are there (a copy of its password left in one stays
// hidden), and says which (red team 14c, finding 4).
func TestNodeRecordKeepsEarlierFolders(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	first, second, gone := t.TempDir(), t.TempDir(), filepath.Join(t.TempDir(), "gone")
	if err := os.Mkdir(gone, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := RegisterNode(NodeRecord{Name: "gpu1", State: "/nowhere/node", Hide: []string{first, gone}}); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	earlier, err := RegisterNode(NodeRecord{Name: "gpu1", State: "/nowhere/node", Hide: []string{second}})
	if err != nil || !slices.Equal(earlier, []string{first}) {
		t.Fatalf("earlier folders %v, %v; want %s", earlier, err, first)
	}
	if got := Hidden(); !slices.Contains(got, first) || !slices.Contains(got, second) {
		t.Errorf("hidden %v, want %s and %s", got, first, second)
	}
}

// A console's socket serves protect while the console starts (Enter
// records it only so), and the human's other requests wait until it is
// ready (ListenStarting).
func TestStartingConsoleServesProtectFirst(t *testing.T) {
	con, dir := newConsole(t)
	srv, err := ListenStarting(dir, con)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c, err := NewClient(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Protect([]string{"/p"}, []string{"/h"}); err != nil {
		t.Fatal(err)
	}
	con.mu.Lock()
	got := strings.Join(con.sent, ",")
	con.mu.Unlock()
	if got != "protect [/p] hide [/h]" {
		t.Errorf("the console was asked %q", got)
	}
	answered := make(chan error, 1)
	go func() { _, err := c.Agents(); answered <- err }()
	select {
	case err := <-answered:
		t.Fatalf("agents answered before the console was ready: %v", err)
	case <-time.After(200 * time.Millisecond): // no answer: held (it could only pass wrongly)
	}
	srv.Ready()
	if err := <-answered; err != nil {
		t.Errorf("agents once ready: %v", err)
	}
}
