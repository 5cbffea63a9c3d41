package agents

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// submitScript is a SubmitCheck that answers from a list (pending while
// the list says so) and counts its calls.
type submitScript struct {
	mu      sync.Mutex
	answers []bool
	calls   []string
	reports []string
}

func (s *submitScript) check(text string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, text)
	if len(s.answers) == 0 {
		return false
	}
	a := s.answers[0]
	s.answers = s.answers[1:]
	return a
}

func (s *submitScript) report(text string, presses int, taken bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reports = append(s.reports, strings.Join([]string{text, string(rune('0' + presses)), map[bool]string{true: "taken", false: "stuck"}[taken]}, " "))
}

func (s *submitScript) got() (calls, reports []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.calls...), append([]string(nil), s.reports...)
}

func submitSpec(recFile string, retries int, s *submitScript) Spec {
	return Spec{
		Command:     mock("say ready\nidle", "--raw", "--record", recFile),
		Preset:      Preset{Paste: PasteNever, Newline: "\r", Submit: "\r", SubmitRetries: retries},
		SubmitCheck: s.check,
		OnResubmit:  s.report,
	}
}

// typeAndWait types texts and waits until the program has read each.
func typeAndWait(t *testing.T, a *Agent, rec *recorder, texts ...string) {
	t.Helper()
	for _, text := range texts {
		d := newDone()
		a.Type(text, d.fn)
		if err := d.wait(t, rec); err != nil {
			t.Fatalf("%q: %v", text, err)
		}
	}
}

func TestSubmitPressedAgainWhileTextWaits(t *testing.T) {
	recFile := filepath.Join(t.TempDir(), "input")
	s := &submitScript{answers: []bool{true, true, false}}
	a, rec := start(t, submitSpec(recFile, 3, s))
	eventually(t, "ready", rec.diag, func() bool { return rec.has("ready") })
	typeAndWait(t, a, rec, "first\n", "second")
	// The second message is typed after the first one's check is over, so
	// once it is read every press for the first is in the record.
	fileIs(t, recFile, "first\r\r\rsecond\r", rec)
	eventually(t, "the checks", rec.diag, func() bool { c, _ := s.got(); return len(c) == 4 })
	calls, reports := s.got()
	if strings.Join(calls, "|") != "first|first|first|second" {
		t.Errorf("checked %q; want the sanitized text, three times for the first", calls)
	}
	if strings.Join(reports, "|") != "first 2 taken" {
		t.Errorf("reports %q", reports)
	}
}

func TestSubmitStuckAfterRetries(t *testing.T) {
	recFile := filepath.Join(t.TempDir(), "input")
	s := &submitScript{answers: []bool{true, true, true}} // the first check and one after each press
	a, rec := start(t, submitSpec(recFile, 2, s))
	eventually(t, "ready", rec.diag, func() bool { return rec.has("ready") })
	typeAndWait(t, a, rec, "stuck", "next")
	fileIs(t, recFile, "stuck\r\r\rnext\r", rec)
	eventually(t, "the report", rec.diag, func() bool { _, r := s.got(); return len(r) == 1 })
	if _, reports := s.got(); reports[0] != "stuck 2 stuck" {
		t.Errorf("reports %q", reports)
	}
}

func TestSubmitNotPressedWhileHeld(t *testing.T) {
	// A permission dialog came up after the text was read: the check's
	// "pending" is not acted on, as the key would answer the dialog.
	recFile := filepath.Join(t.TempDir(), "input")
	var a *Agent
	s := &submitScript{answers: []bool{true}}
	spec := submitSpec(recFile, 2, s)
	held := make(chan struct{})
	var once sync.Once
	spec.SubmitCheck = func(text string) bool {
		once.Do(func() { a.Hold(true) })
		return s.check(text)
	}
	// The hold is released once the writer has looked at it and left the
	// text: released before, the key would rightly go.
	var left sync.Once
	f := func() { left.Do(func() { close(held) }) }
	submitLeft.Store(&f)
	defer submitLeft.Store(nil)
	a, rec := start(t, spec)
	eventually(t, "ready", rec.diag, func() bool { return rec.has("ready") })
	typeAndWait(t, a, rec, "run it")
	select {
	case <-held:
	case <-time.After(waitTimeout):
		data, _ := os.ReadFile(recFile)
		t.Fatalf("the writer did not leave the text while held: %q", data)
	}
	a.Hold(false)
	typeAndWait(t, a, rec, "after")
	fileIs(t, recFile, "run it\rafter\r", rec)
}

func TestSubmitCheckOff(t *testing.T) {
	recFile := filepath.Join(t.TempDir(), "input")
	s := &submitScript{answers: []bool{true, true}}
	a, rec := start(t, submitSpec(recFile, 0, s))
	eventually(t, "ready", rec.diag, func() bool { return rec.has("ready") })
	typeAndWait(t, a, rec, "one", "two")
	fileIs(t, recFile, "one\rtwo\r", rec)
	if calls, _ := s.got(); len(calls) != 0 {
		t.Errorf("checked %q with SubmitRetries 0", calls)
	}
	if data, _ := os.ReadFile(recFile); strings.Count(string(data), "\r") != 2 {
		t.Errorf("typed %q", data)
	}
}

// A permission dialog drawn since the engine last looked (the screen shows
// it, the agent is not held yet) gets no key of a message: typing waits
// until it is gone (Spec.DialogShown), as a dialog takes typed keys as its
// answer (a reformat notice typed into Copilot CLI's dialog as it came up).
func TestNothingTypedIntoADialogOnScreen(t *testing.T) {
	dir := t.TempDir()
	closeFile := filepath.Join(dir, "close")
	script := `echo DIALOG-UP
while [ ! -e ` + closeFile + ` ]; do if read -t 0.05 line; then echo "EARLY $line"; fi; done
echo DIALOG-GONE
read line; echo "GOT $line"; exec sleep 600`
	asked := make(chan struct{})
	var once sync.Once
	var rec *recorder
	spec := Spec{Name: "dialog", Command: []string{"bash", "--norc", "-c", script},
		Preset: Preset{Submit: "\r", Newline: "\n", SubmitDelay: 50 * time.Millisecond}}
	spec.DialogShown = func() bool {
		shown := rec != nil && rec.has("DIALOG-UP") && !rec.has("DIALOG-GONE")
		if shown {
			once.Do(func() { close(asked) })
		}
		return shown
	}
	rec = &recorder{}
	a := Start(spec, rec)
	defer a.Stop()
	eventually(t, "the dialog", rec.diag, func() bool { return rec.has("DIALOG-UP") })
	d := newDone()
	a.Type("hello", d.fn)
	select {
	case <-asked: // the writer saw the dialog and waits
	case <-time.After(waitTimeout):
		t.Fatalf("the writer did not look at the screen\n%s", rec.diag())
	}
	if err := os.WriteFile(closeFile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := d.wait(t, rec); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the message after the dialog", rec.diag, func() bool { return rec.has("GOT hello") })
	if rec.has("EARLY") {
		t.Fatalf("typed into the dialog:\n%s", rec.output())
	}
}
