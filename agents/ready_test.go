package agents

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/teamlead/teamlead/bus/wire"
)

// Issue 12 item 5: ready_timeout counts from the process's start. A
// program that has run silently for longer than it gets its messages at
// once, the first and every later one (before, each waited the whole
// timeout again, counted from the message).
func TestReadyTimeoutCountsFromProcessStart(t *testing.T) {
	const ready = 2 * time.Second
	recFile := filepath.Join(t.TempDir(), "input")
	a, rec := start(t, Spec{
		Command: mock("idle", "--raw", "--record", recFile),
		Preset:  Preset{Paste: PasteNever, Newline: "\r", Submit: "\r", ReadyTimeout: ready},
	})
	eventually(t, "the process to run", rec.diag, func() bool { return a.Info().State == wire.StateRunning })
	started := a.Info().StartedAt
	// Wait (for a condition, not a guess) until the silent process has run
	// longer than ready_timeout.
	eventually(t, "the process to be older than ready_timeout", rec.diag, func() bool { return time.Since(started) > ready+500*time.Millisecond })
	if rec.output() != "" {
		t.Fatalf("the program was meant to be silent: %q", rec.output())
	}
	for i, text := range []string{"first", "second", "third"} {
		d := newDone()
		sent := time.Now()
		a.Type(text, d.fn)
		if err := d.wait(t, rec); err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		// The old wait took at least the whole timeout for each message;
		// typing and the read confirmation take milliseconds.
		if took := time.Since(sent); took >= ready {
			t.Errorf("message %d (%s) took %v to be read: it waited for ready_timeout again", i, text, took)
		}
	}
	fileIs(t, recFile, "first\rsecond\rthird\r", rec)
}

// A young silent process still gets ready_timeout, counted from its start.
func TestReadyTimeoutStillWaitsForAYoungProcess(t *testing.T) {
	const ready = 1500 * time.Millisecond
	recFile := filepath.Join(t.TempDir(), "input")
	a, rec := start(t, Spec{
		Command: mock("idle", "--raw", "--record", recFile),
		Preset:  Preset{Paste: PasteNever, Newline: "\r", Submit: "\r", ReadyTimeout: ready},
	})
	d := newDone()
	a.Type("early", d.fn)
	if err := d.wait(t, rec); err != nil {
		t.Fatal(err)
	}
	if since := time.Since(a.Info().StartedAt); since < ready {
		t.Errorf("typed %v after the start, before ready_timeout (%v)", since, ready)
	}
	fileIs(t, recFile, "early\r", rec)
}
