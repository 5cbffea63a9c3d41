package agents

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
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
	// The echo is drawn as soon as the text is written.
	eventually(t, "echo of the typed text", rec.diag, func() bool { return rec.echoed("hello") })
	select {
	case err := <-d.ch:
		t.Fatalf("confirmed (%v) while the program had not read the text", err)
	case <-time.After(50 * confirmPoll):
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
	eventually(t, "echo", rec.diag, func() bool { return rec.echoed("never read") })
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
	var retyped atomic.Value // what OnRetype was told, before the second run got it
	a, rec := start(t, Spec{Command: []string{"sh", "-c", script}, Dir: dir, Restart: RestartOnFailure, Backoff: 100 * time.Millisecond,
		OnRetype: func(text string) { retyped.Store(text) }})
	eventually(t, "ready", rec.diag, func() bool { return strings.Contains(rec.output(), "ready") })
	d := newDone()
	a.Type("again", d.fn)
	eventually(t, "echo", rec.diag, func() bool { return rec.echoed("again") })
	if err := os.WriteFile(filepath.Join(dir, "quit"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := d.wait(t, rec); err != nil {
		t.Fatal(err)
	}
	fileIs(t, recFile, "again\n", rec)
	// The console was told before the retype, so the second echo is
	// known as echo too.
	if got, _ := retyped.Load().(string); got != "again" {
		t.Errorf("OnRetype heard %q", got)
	}
}

// A program more than 4 KiB behind: the line discipline's buffer is full
// and the rest waits in the terminal's flip buffer, where TIOCINQ does not
// count it. None of it is read, so none may be confirmed (the first
// version took written minus TIOCINQ as read and confirmed most of them).
func TestTypeNotConfirmedWhileBehindAFullLineDiscipline(t *testing.T) {
	dir := t.TempDir()
	const msgs, size = 12, 900
	a, rec := start(t, Spec{
		Command: []string{"sh", "-c", `echo ready; while [ ! -e go ]; do sleep 0.01; done; exec cat > got`},
		Dir:     dir,
	})
	eventually(t, "ready", rec.diag, func() bool { return strings.Contains(rec.output(), "ready") })
	a.mu.Lock()
	p := a.cur
	a.mu.Unlock()
	// Messages typed back to back, as the human's keys or a writer that
	// does not wait would: each is tracked as it is written.
	var ds []*doneRec
	for i := range msgs {
		d := newDone()
		ds = append(ds, d)
		if err := a.write(p, fmt.Sprintf("%02d", i)+strings.Repeat("x", size-2)+"\r"); err != nil {
			t.Fatal(err)
		}
		if _, ok := p.confirm.add(&message{done: d.fn}, p.written.Load()); !ok {
			t.Fatal("process gone")
		}
	}
	// Then the confirmer looks, over 200 ms (ten times the first version's
	// settle time), while the program still reads nothing.
	for range 100 {
		a.confirmRead(p, false)
		time.Sleep(confirmPoll)
	}
	for i, d := range ds {
		select {
		case err := <-d.ch:
			t.Fatalf("message %d confirmed (%v) while the program had read nothing", i, err)
		default:
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for i, d := range ds {
		if err := d.wait(t, rec); err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
	}
	want := ""
	for i := range msgs {
		want += fmt.Sprintf("%02d", i) + strings.Repeat("x", size-2) + "\n"
	}
	fileIs(t, filepath.Join(dir, "got"), want, rec)
}
