package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/teamlead/teamlead/agents"
)

// defaultExpectTimeout is how long expect waits unless `timeout` says otherwise.
const defaultExpectTimeout = 30 * time.Second

// chunkPause is the pause after each piece written under `chunk N`, long
// enough that the reader on the other side sees separate reads.
const chunkPause = time.Millisecond

// Exit codes of the mock.
const (
	exitOK      = 0
	exitUsage   = 2 // bad flags or script
	exitExpect  = 3 // expect timed out or input ended first
	exitIOError = 1 // the terminal went away
)

// runner executes a parsed script.
type runner struct {
	out        io.Writer     // the terminal
	in         *inputLines   // input lines, fed by the reader goroutine
	name       string        // replaces {name}
	chunk      int           // bytes per write; 0 = whole writes
	timeout    time.Duration // expect's timeout
	size       func() (cols, rows int, err error)
	ignoreTerm func()
	sleep      func(time.Duration)
	consumed   []string          // input lines expect has read since the last show-input
	vars       map[string]string // what expect's named groups captured, for {VAR}
}

// run executes cmds. It returns the exit code and true when the script
// exits (exit, a failed expect, a dead terminal), or false when the mock
// should go idle (idle, or the end of the script).
func (r *runner) run(cmds []Command) (code int, exit bool) {
	if r.timeout == 0 {
		r.timeout = defaultExpectTimeout
	}
	if r.sleep == nil {
		r.sleep = time.Sleep
	}
	for _, c := range cmds {
		var err error
		switch c.Op {
		case OpSay:
			err = r.emit(r.subst(c.Text, 0) + "\n")
		case OpWrite:
			err = r.emit(r.subst(c.Text, 0))
		case OpRoute, OpRoute1, OpGap:
			err = r.emit(r.format(&c, 0))
		case OpBurst:
			var b strings.Builder
			for i := 1; i <= c.N; i++ {
				b.WriteString(r.format(c.Sub, i))
			}
			err = r.emit(b.String())
		case OpChunk:
			r.chunk = c.N
		case OpTimeout:
			r.timeout = c.Dur
		case OpSleep:
			r.sleep(c.Dur)
		case OpExpect, OpExpectN:
			if msg := r.expect(&c); msg != "" {
				_ = r.emit("mockagent: " + msg + "\n")
				return exitExpect, true
			}
		case OpWriteFile:
			err = writeFile(c.Path, r.subst(c.Text, 0))
		case OpDialog:
			err = r.emit(c.Text)
		case OpExpectKey:
			if !r.in.key(c.Text, time.Now().Add(r.timeout)) {
				_ = r.emit(fmt.Sprintf("mockagent: timeout waiting for the key %q\n", c.Text))
				return exitExpect, true
			}
			err = r.emit(fmt.Sprintf("\nkey %q\n", c.Text))
		case OpShowInput:
			err = r.emit(strings.Join(r.consumed, "\n") + "\n")
			r.consumed = nil
		case OpSize:
			if r.size == nil {
				err = r.emit("size ?\n")
				break
			}
			cols, rows, serr := r.size()
			if serr != nil {
				err = r.emit("size ? (" + serr.Error() + ")\n")
				break
			}
			err = r.emit(fmt.Sprintf("size %dx%d\n", cols, rows))
		case OpIgnoreTerm:
			if r.ignoreTerm != nil {
				r.ignoreTerm()
			}
		case OpExit:
			return c.N, true
		case OpIdle:
			return exitOK, false
		}
		if err != nil {
			return exitIOError, true
		}
	}
	return exitOK, false
}

// expect waits for c.N input lines matching c.Re, consuming lines in
// order. It returns "" on success, else the message to print.
func (r *runner) expect(c *Command) string {
	deadline := time.Now().Add(r.timeout)
	for got := 0; got < c.N; {
		line, ok, eof := r.in.next(deadline)
		switch {
		case ok:
			r.consumed = append(r.consumed, line)
			if m := c.Re.FindStringSubmatch(line); m != nil {
				got++
				for j, name := range c.Re.SubexpNames() {
					if name != "" && j < len(m) {
						if r.vars == nil {
							r.vars = map[string]string{}
						}
						r.vars[name] = m[j]
					}
				}
			}
		case eof:
			return "input closed while waiting for " + c.Re.String()
		default:
			return "timeout waiting for " + c.Re.String()
		}
	}
	return ""
}

// emit writes s to the terminal, in pieces of r.chunk bytes if set.
func (r *runner) emit(s string) error {
	if r.chunk <= 0 {
		_, err := io.WriteString(r.out, s)
		return err
	}
	for len(s) > 0 {
		n := min(r.chunk, len(s))
		if _, err := io.WriteString(r.out, s[:n]); err != nil {
			return err
		}
		s = s[n:]
		r.sleep(chunkPause)
	}
	return nil
}

// subst replaces {name} with the mock's name, {VAR} with what a named
// group (?P<VAR>…) of an expect captured, and, when i > 0, {i} with i.
func (r *runner) subst(s string, i int) string {
	if strings.Contains(s, "{name}") {
		s = strings.ReplaceAll(s, "{name}", r.name)
	}
	for k, v := range r.vars {
		if strings.Contains(s, "{"+k+"}") {
			s = strings.ReplaceAll(s, "{"+k+"}", v)
		}
	}
	if i > 0 && strings.Contains(s, "{i}") {
		s = strings.ReplaceAll(s, "{i}", strconv.Itoa(i))
	}
	return s
}

// format renders a route, route1 or gap command (sequence number i for
// burst, 0 otherwise).
func (r *runner) format(c *Command, i int) string {
	var b strings.Builder
	switch c.Op {
	case OpRoute:
		b.WriteString("[ROUTE]\n")
		body, hasBody := "", false
		for _, p := range c.Pairs {
			if strings.EqualFold(p.Key, "body") {
				body, hasBody = p.Value, true
				continue
			}
			b.WriteString(p.Key + ": " + r.subst(p.Value, i) + "\n")
		}
		if hasBody {
			b.WriteString("body: " + r.subst(body, i) + "\n")
		}
		b.WriteString("[/ROUTE]\n")
	case OpRoute1:
		b.WriteString("[ROUTE]")
		body, hasBody := "", false
		for _, p := range c.Pairs {
			if strings.EqualFold(p.Key, "body") {
				body, hasBody = p.Value, true
				continue
			}
			b.WriteString(" " + p.Key + ": " + r.subst(p.Value, i))
		}
		if hasBody {
			b.WriteString(" body: " + r.subst(body, i))
		}
		b.WriteString(" [/ROUTE]\n")
	case OpGap:
		b.WriteString("<gap>\n")
		for _, p := range c.Pairs {
			b.WriteString("  <" + p.Key + ">" + r.subst(p.Value, i) + "</" + p.Key + ">\n")
		}
		b.WriteString("</gap>\n")
	}
	return b.String()
}

// inputLines splits the terminal input into lines (ended by CR, LF or
// CRLF), strips escape sequences and control characters from each, and
// queues them for expect.
type inputLines struct {
	mu      sync.Mutex
	lines   []string
	eof     bool
	partial []byte
	keys    []byte // every byte typed, for expectkey
	lastCR  bool
	sig     chan struct{} // capacity 1
	box     *inputBox     // --input-box: nil when off
}

func newInputLines() *inputLines { return &inputLines{sig: make(chan struct{}, 1)} }

// feed adds raw input bytes.
func (in *inputLines) feed(b []byte) {
	in.mu.Lock()
	pushed := false
	var submitted []string
	for _, c := range b {
		if c == '\n' && in.lastCR {
			in.lastCR = false
			continue
		}
		in.lastCR = false
		if (c == '\r' || c == '\n') && in.box != nil && in.box.newline() {
			in.partial = append(in.partial, '\n')
			in.lastCR = c == '\r'
			continue
		}
		if c == '\r' || c == '\n' {
			line := agents.Sanitize(string(in.partial))
			in.lines = append(in.lines, line)
			submitted = append(submitted, line)
			in.partial = in.partial[:0]
			in.lastCR = c == '\r'
			pushed = true
			continue
		}
		in.partial = append(in.partial, c)
		if in.box != nil {
			in.box.typed(in.partial)
		}
	}
	if in.box != nil && len(b) > 0 {
		in.box.update(submitted, in.partial)
	}
	in.keys = append(in.keys, b...)
	if len(in.keys) > maxKeys {
		in.keys = append(in.keys[:0], in.keys[len(in.keys)-maxKeys:]...)
	}
	in.mu.Unlock()
	if pushed || len(b) > 0 {
		in.wake()
	}
}

// maxKeys bounds the typed bytes kept for expectkey.
const maxKeys = 4096

// key waits until k was typed (anywhere in the input since the last key
// it found) and consumes the input up to it; false at the deadline or EOF.
func (in *inputLines) key(k string, deadline time.Time) bool {
	for {
		in.mu.Lock()
		if i := strings.Index(string(in.keys), k); i >= 0 {
			in.keys = in.keys[i+len(k):]
			in.mu.Unlock()
			return true
		}
		eof := in.eof
		in.mu.Unlock()
		wait := time.Until(deadline)
		if eof || wait <= 0 {
			return false
		}
		select {
		case <-in.sig:
		case <-time.After(wait):
		}
	}
}

// close marks the end of input; an unfinished last line counts as a line.
func (in *inputLines) close() {
	in.mu.Lock()
	if len(in.partial) > 0 {
		in.lines = append(in.lines, agents.Sanitize(string(in.partial)))
		in.partial = nil
	}
	in.eof = true
	in.mu.Unlock()
	in.wake()
}

func (in *inputLines) wake() {
	select {
	case in.sig <- struct{}{}:
	default:
	}
}

// next returns the next line (ok), or eof once input ended and no line is
// left, or neither at the deadline.
func (in *inputLines) next(deadline time.Time) (line string, ok, eof bool) {
	for {
		in.mu.Lock()
		if len(in.lines) > 0 {
			line = in.lines[0]
			in.lines = in.lines[1:]
			in.mu.Unlock()
			return line, true, false
		}
		eof = in.eof
		in.mu.Unlock()
		if eof {
			return "", false, true
		}
		d := time.Until(deadline)
		if d <= 0 {
			return "", false, false
		}
		t := time.NewTimer(d)
		select {
		case <-in.sig:
		case <-t.C:
		}
		t.Stop()
	}
}

// waitEOF blocks until the input has ended, discarding lines.
func (in *inputLines) waitEOF() {
	for {
		in.mu.Lock()
		in.lines = nil
		eof := in.eof
		in.mu.Unlock()
		if eof {
			return
		}
		<-in.sig
	}
}

// writeFile writes text to path through a temporary file and a rename, so
// a reader never sees it half-written (as editors and atomic writers do).
func writeFile(path, text string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
