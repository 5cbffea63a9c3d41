package agents

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// pressed runs PressKey and returns its outcome.
func pressed(t *testing.T, a *Agent, keys string, wait time.Duration, shown func() bool) KeyOutcome {
	t.Helper()
	ch := make(chan KeyOutcome, 1)
	a.PressKey(keys, wait, shown, func(o KeyOutcome) { ch <- o })
	select {
	case o := <-ch:
		return o
	case <-time.After(10 * time.Second):
		t.Fatal("PressKey never told what became of the key")
		return KeyLost
	}
}

// Red team 18b, finding 1: a dialog key nothing reads must not stay in the
// input queue for the next program (the next dialog) to read. It is taken
// back; what the next program reads is only what is typed after.
func TestDialogKeyUnreadIsTakenBack(t *testing.T) {
	dir := t.TempDir()
	recFile := filepath.Join(dir, "input")
	script := `echo ready; while [ ! -e go ]; do sleep 0.01; done; exec ` + mockPath + ` --raw --record ` + recFile + ` -e 'say second
timeout 5s
expectkey 2
say GOT-2'`
	a, rec := start(t, Spec{Command: []string{"sh", "-c", script}, Dir: dir})
	eventually(t, "ready", rec.diag, func() bool { return strings.Contains(rec.output(), "ready") })
	if o := pressed(t, a, "1", 300*time.Millisecond, nil); o != KeyTakenBack {
		t.Fatalf("a key nothing read: outcome %v, want taken back", o)
	}
	if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	eventually(t, "second program", rec.diag, func() bool { return strings.Contains(rec.output(), "second") })
	if o := pressed(t, a, "2", 5*time.Second, nil); o != KeyRead {
		t.Fatalf("a key the program reads: outcome %v, want read", o)
	}
	eventually(t, "GOT-2", rec.diag, func() bool { return strings.Contains(rec.output(), "GOT-2") })
	fileIs(t, recFile, "2", rec)
}

// A key whose dialog leaves the screen before it is read is taken back at
// once, not at the deadline.
func TestDialogKeyTakenBackWhenDialogLeaves(t *testing.T) {
	a, rec := start(t, Spec{Command: []string{"sh", "-c", "echo ready; sleep 100"}})
	eventually(t, "ready", rec.diag, func() bool { return strings.Contains(rec.output(), "ready") })
	begin := time.Now()
	if o := pressed(t, a, "\x1b", time.Minute, func() bool { return time.Since(begin) < 100*time.Millisecond }); o != KeyTakenBack {
		t.Fatalf("outcome %v, want taken back", o)
	}
	if time.Since(begin) > 30*time.Second {
		t.Fatal("taken back only at the deadline")
	}
	if a.isHeld() {
		t.Fatal("the writer is still held after the key was taken back")
	}
}

// A message typed before a key that is taken back, and not read yet, is
// flushed with it: it is typed again, and confirmed only once the program
// read it (it was confirmed read, and lost, when the flush emptied the
// queue the confirmer looks at).
func TestMessageFlushedWithAKeyIsTypedAgain(t *testing.T) {
	dir := t.TempDir()
	recFile := filepath.Join(dir, "input")
	script := `echo ready; while [ ! -e go ]; do sleep 0.01; done; stty raw -echo; exec cat > ` + recFile
	a, rec := start(t, Spec{Command: []string{"sh", "-c", script}, Dir: dir})
	eventually(t, "ready", rec.diag, func() bool { return strings.Contains(rec.output(), "ready") })
	d := newDone()
	a.Type("hello", d.fn)
	eventually(t, "the message typed, unread", rec.diag, func() bool {
		a.mu.Lock()
		p := a.cur
		a.mu.Unlock()
		p.confirm.mu.Lock()
		defer p.confirm.mu.Unlock()
		return len(p.confirm.pending) == 1
	})
	if o := pressed(t, a, "1", 300*time.Millisecond, nil); o != KeyTakenBack {
		t.Fatalf("a key nothing read: outcome %v, want taken back", o)
	}
	if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := d.wait(t, rec); err != nil {
		t.Fatalf("the message: %v", err)
	}
	eventually(t, "the message read", rec.diag, func() bool {
		b, _ := os.ReadFile(recFile)
		return strings.Contains(string(b), "hello")
	})
	if b, _ := os.ReadFile(recFile); strings.Contains(string(b), "1") {
		t.Errorf("the key taken back was read: %q", b)
	}
}

// A key is typed only while the dialog it answers is on the screen: a
// program that reads at once would take a key typed into another dialog
// before any watch could take it back (red team 21b, finding 1: the y on
// npm install answered the rm -rf ~ dialog that had replaced it).
func TestDialogKeyNotTypedWhileAnotherDialogShows(t *testing.T) {
	dir := t.TempDir()
	recFile := filepath.Join(dir, "input")
	script := `exec ` + mockPath + ` --raw --record ` + recFile + ` -e 'say ready
timeout 20s
expectkey 2
say GOT-2'`
	a, rec := start(t, Spec{Command: []string{"sh", "-c", script}, Dir: dir})
	eventually(t, "ready", rec.diag, func() bool { return strings.Contains(rec.output(), "ready") })
	if o := pressed(t, a, "1", 5*time.Second, func() bool { return false }); o != KeyNotShown {
		t.Fatalf("a key for a dialog not on the screen: outcome %v, want not shown", o)
	}
	if b, _ := os.ReadFile(recFile); len(b) > 0 {
		t.Fatalf("the key was typed: the program read %q", b)
	}
	if a.isHeld() {
		t.Fatal("the writer is still held after the key was not typed")
	}
	if o := pressed(t, a, "2", 5*time.Second, func() bool { return true }); o != KeyRead {
		t.Fatalf("a key for the dialog shown: outcome %v, want read", o)
	}
	eventually(t, "GOT-2", rec.diag, func() bool { return strings.Contains(rec.output(), "GOT-2") })
	fileIs(t, recFile, "2", rec)
}
