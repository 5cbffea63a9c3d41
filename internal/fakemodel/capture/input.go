package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/teamlead/teamlead/internal/fakemodel"
)

// inputStep is one screen of the input capture: what was done before it.
type inputStep struct {
	// Name is the fixture suffix: <cli>-<version>-input-<name>.screen.txt.
	Name string `json:"name"`
	// Did says what happened just before the screen was saved.
	Did string `json:"did"`
	// Pending is whether typed text waits in the CLI's input box (not
	// submitted) on this screen: what the preset's input check must say.
	Pending bool `json:"pending"`
	// CursorX, CursorY and CursorVisible are the terminal cursor's.
	CursorX       int  `json:"cursor_x"`
	CursorY       int  `json:"cursor_y"`
	CursorVisible bool `json:"cursor_visible"`
}

// Texts the input capture types: one line, then three pasted lines.
const (
	inputLine  = "Summarise the release notes for version 2.4 of the parser, please."
	inputLines = "Check these three things before the release:\nthe changelog mentions the parser fix\nthe version number is bumped everywhere"
	// inputEnvelope is a relayed envelope as the console types it.
	inputEnvelope = "[ROUTE]\nfrom: architect\nto: dev\ntype: answer\ntask: T-12\nid: m-41\nbody: Use SSE for server-to-client updates; the load balancer keeps idle connections for 60 s, so send a comment line every 30 s.\n[/ROUTE]"
)

// captureInput saves the CLI's screen with typed text waiting in its input
// box and after it was submitted, for the submit check: idle, a typed line,
// the line submitted and answered, three pasted lines, those submitted and
// answered. Written to <cli>-<version>-input-<step>.screen.txt with a
// .json that says, per screen, whether text waits and where the cursor is.
func (r run) captureInput() error {
	r.sc = scenario{Name: "input"}
	r.stable = true
	s, err := r.start([]fakemodel.Reply{{Text: "Noted: the release notes."}, {Text: "Noted: the three checks."},
		{Text: "Noted: the release notes again."}, {Text: "Noted: the envelope."}}, nil)
	if err != nil {
		return err
	}
	defer s.close()
	var steps []inputStep
	screens := map[string][]byte{}
	save := func(name, did, text string, pending bool) {
		r.term.mu.Lock()
		x, y, vis := r.term.scr.Cursor()
		r.term.mu.Unlock()
		steps = append(steps, inputStep{Name: name, Did: did, Pending: pending, CursorX: x, CursorY: y, CursorVisible: vis})
		screens["-"+name+".screen.txt"] = []byte(text)
	}
	text, err := r.waitFor("the input line", r.cli.ready)
	if err != nil {
		return err
	}
	save("idle", "started", text, false)

	typeOnly := func(t string) error {
		_, _, bracketed, _, _ := r.term.snapshot()
		if bracketed {
			t = "\x1b[200~" + t + "\x1b[201~"
		}
		_, err := io.WriteString(s.master, t)
		return err
	}
	if err := typeOnly(inputLine); err != nil {
		return err
	}
	tail := inputLine[len(inputLine)-20:]
	if text, err = r.waitFor("the typed line", func(sc string) (bool, error) { return strings.Contains(sc, tail), nil }); err != nil {
		return err
	}
	save("typed", "typed one line, not submitted", text, true)

	answered := func(n int, done string) (string, error) {
		return r.waitFor("the reply", func(sc string) (bool, error) {
			if s.model.Used() < n || !strings.Contains(sc, done) {
				return false, nil
			}
			return r.cli.ready(sc)
		})
	}
	if _, err := io.WriteString(s.master, r.cli.submit()); err != nil {
		return err
	}
	if text, err = answered(1, "the release notes."); err != nil {
		return err
	}
	save("submitted", "submitted the line; the reply is drawn", text, false)

	before := text
	if err := typeOnly(inputLines); err != nil {
		return err
	}
	if text, err = r.waitFor("the pasted lines", func(sc string) (bool, error) { return sc != before, nil }); err != nil {
		return err
	}
	save("pasted", "pasted three lines, not submitted", text, true)
	if _, err := io.WriteString(s.master, r.cli.submit()); err != nil {
		return err
	}
	if text, err = answered(2, "the three checks."); err != nil {
		return err
	}
	save("pasted-submitted", "submitted the three lines; the reply is drawn", text, false)

	// The submit key in the same write as the paste: a CLI that takes an
	// Enter right after a paste as a newline leaves the text waiting.
	before = text
	if err := typeOnly(inputLine); err != nil {
		return err
	}
	if _, err := io.WriteString(s.master, r.cli.submit()); err != nil {
		return err
	}
	if text, err = r.waitFor("the rushed line", func(sc string) (bool, error) { return sc != before, nil }); err != nil {
		return err
	}
	rushed := s.model.Used() < 3
	save("rushed", fmt.Sprintf("pasted one line and the submit key at once; the model got it: %v", !rushed), text, rushed)
	if rushed {
		if _, err := io.WriteString(s.master, r.cli.submit()); err != nil {
			return err
		}
		if text, err = answered(3, "the release notes again."); err != nil {
			return err
		}
		save("rushed-submitted", "pressed the submit key again; the reply is drawn", text, false)
	} else if text, err = answered(3, "the release notes again."); err != nil {
		return err
	}

	// A relayed envelope, pasted: a CLI may show a long paste as a
	// placeholder ("[Pasted text #1 +8 lines]") instead of the text.
	before = text
	if err := typeOnly(inputEnvelope); err != nil {
		return err
	}
	if text, err = r.waitFor("the pasted envelope", func(sc string) (bool, error) { return sc != before, nil }); err != nil {
		return err
	}
	save("envelope", "pasted a relayed envelope, not submitted", text, true)
	if _, err := io.WriteString(s.master, r.cli.submit()); err != nil {
		return err
	}
	if text, err = answered(4, "the envelope."); err != nil {
		return err
	}
	save("envelope-submitted", "submitted the envelope; the reply is drawn", text, false)

	meta := struct {
		CLI      string      `json:"cli"`
		Version  string      `json:"version"`
		Cols     int         `json:"cols"`
		Rows     int         `json:"rows"`
		Env      []string    `json:"extra_env,omitempty"`
		Captured time.Time   `json:"captured"`
		Line     string      `json:"typed_line"`
		Lines    string      `json:"pasted_lines"`
		Envelope string      `json:"pasted_envelope"`
		Steps    []inputStep `json:"steps"`
		Requests []string    `json:"requests"`
	}{CLI: r.cli.name(), Version: r.version, Cols: r.cols, Rows: r.rows, Env: r.env,
		Captured: time.Now().UTC().Truncate(time.Second), Line: inputLine, Lines: inputLines, Envelope: inputEnvelope, Steps: steps,
		Requests: describe(s.model.Requests())}
	mb, err := encodeMeta(meta)
	if err != nil {
		return err
	}
	screens[".json"] = mb
	base := filepath.Join(r.out, r.name(""))
	fmt.Printf("input: -> %s-*.screen.txt\n", base)
	return writeFiles(base, screens)
}
