package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/teamlead/teamlead/agents"
)

// inputBox imitates a full-screen CLI's input box (--input-box): the last
// rows of the output are a "> " prompt with the text typed but not yet
// submitted, the cursor after it; a pasted newline stays in the text, and
// an Enter within afterPaste of a paste's end is taken as a newline, as
// Gemini CLI takes it, so the text waits until the next Enter. Submitted
// texts and the script's output go above the box, which is drawn again
// below them.
type inputBox struct {
	mu         sync.Mutex
	out        io.Writer
	afterPaste time.Duration
	pasting    bool
	pasteEnd   time.Time
	pending    string // the text in the box
	rows       int    // rows the box takes below its first
	drawn      bool   // the box is on screen
}

// newline reports whether an Enter typed now is a newline in the text
// rather than its end.
func (b *inputBox) newline() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.pasting || b.afterPaste > 0 && time.Since(b.pasteEnd) < b.afterPaste
}

// typed notes the paste markers at the end of the pending text.
func (b *inputBox) typed(partial []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case bytes.HasSuffix(partial, []byte(pasteStart)):
		b.pasting = true
	case bytes.HasSuffix(partial, []byte(pasteEnd)):
		b.pasting = false
		b.pasteEnd = time.Now()
	}
}

// update puts the submitted texts above the box and shows partial in it.
func (b *inputBox) update(submitted []string, partial []byte) {
	var s strings.Builder
	for _, t := range submitted {
		s.WriteString("> " + strings.ReplaceAll(t, "\n", "\n  ") + "\n")
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.pending = agents.Sanitize(string(partial))
	b.writeLocked(s.String())
}

// Write prints the script's output above the box.
func (b *inputBox) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.writeLocked(string(p))
	return len(p), nil
}

// writeLocked clears the box, prints text (its "\n" as CRLF, as the
// terminal would) and, once text ends a line, draws the box again.
func (b *inputBox) writeLocked(text string) {
	var s strings.Builder
	if b.drawn {
		if b.rows > 0 {
			fmt.Fprintf(&s, "\x1b[%dA", b.rows)
		}
		s.WriteString("\r\x1b[J")
		b.drawn = false
	}
	s.WriteString(strings.ReplaceAll(text, "\n", "\r\n"))
	if text == "" || strings.HasSuffix(text, "\n") {
		lines := strings.Split(b.pending, "\n")
		s.WriteString("> " + strings.Join(lines, "\r\n  "))
		b.rows, b.drawn = len(lines)-1, true
	}
	_, _ = io.WriteString(b.out, s.String())
}

// Bracketed paste markers.
const (
	pasteStart = "\x1b[200~"
	pasteEnd   = "\x1b[201~"
)
