package agents

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A message is delivered when the program has read it, not when it was
// written to the PTY: until then it could still be lost with the terminal.
func TestTypeConfirmedOnlyWhenRead(t *testing.T) {
	dir := t.TempDir()
	goFile := filepath.Join(dir, "go")
	a, rec := start(t, Spec{
		Command: []string{"sh", "-c", `echo ready; while [ ! -e go ]; do sleep 0.01; done; read line; echo "got $line"; sleep 100`},
		Dir:     dir,
	})
	eventually(t, "ready", rec.diag, func() bool { return strings.Contains(rec.output(), "ready") })
	d := newDone()
	a.Type("hello", d.fn)
	// The line discipline echoes the text as soon as it is written.
	eventually(t, "echo of the typed text", rec.diag, func() bool { return strings.Contains(rec.output(), "hello") })
	select {
	case err := <-d.ch:
		t.Fatalf("confirmed (%v) while the program had not read the text", err)
	case <-time.After(5 * confirmSettle):
	}
	if err := os.WriteFile(goFile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := d.wait(t, rec); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the program's reply", rec.diag, func() bool { return strings.Contains(rec.output(), "got hello") })
}

func TestTypeUnreadWhenStoppedIsGone(t *testing.T) {
	a, rec := start(t, Spec{Command: []string{"sh", "-c", "echo ready; sleep 100"}})
	eventually(t, "ready", rec.diag, func() bool { return strings.Contains(rec.output(), "ready") })
	d := newDone()
	a.Type("never read", d.fn)
	eventually(t, "echo", rec.diag, func() bool { return strings.Contains(rec.output(), "never read") })
	a.Stop()
	if err := d.wait(t, rec); !errors.Is(err, ErrGone) {
		t.Fatalf("want ErrGone for a message the program never read, got %v", err)
	}
}

func TestTypeUnreadAtExitRetypedAfterRestart(t *testing.T) {
	dir := t.TempDir()
	recFile := filepath.Join(dir, "input")
	// The first run exits without reading its input; the second reads it.
	script := `if [ -e started ]; then exec ` + mockPath + ` --record ` + recFile + ` -e 'say second run
idle'; fi; touch started; echo ready; while [ ! -e quit ]; do sleep 0.01; done; exit 1`
	a, rec := start(t, Spec{Command: []string{"sh", "-c", script}, Dir: dir, Restart: RestartOnFailure, Backoff: 100 * time.Millisecond})
	eventually(t, "ready", rec.diag, func() bool { return strings.Contains(rec.output(), "ready") })
	d := newDone()
	a.Type("again", d.fn)
	eventually(t, "echo", rec.diag, func() bool { return strings.Contains(rec.output(), "again") })
	if err := os.WriteFile(filepath.Join(dir, "quit"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := d.wait(t, rec); err != nil {
		t.Fatal(err)
	}
	fileIs(t, recFile, "again\n", rec)
}
