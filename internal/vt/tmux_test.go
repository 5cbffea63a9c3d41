package vt

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/teamlead/teamlead/internal/testwait"
)

// tmuxServer runs screens through a real tmux, on a private socket, to
// compare with this emulator. The bytes are written to a pane's terminal by
// cat (with output post-processing off, so they reach tmux unchanged); a
// title set after them tells when tmux has drawn them all.
type tmuxServer struct {
	t    *testing.T
	sock string
	dir  string
	conf string
	n    int
}

func newTmux(t *testing.T) *tmuxServer {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (CI installs it): skipping the comparison with tmux")
	}
	dir := t.TempDir()
	s := &tmuxServer{t: t, dir: dir, sock: fmt.Sprintf("vt-test-%d-%d", os.Getpid(), time.Now().UnixNano())}
	s.conf = filepath.Join(dir, "tmux.conf")
	if err := os.WriteFile(s.conf, []byte("set -g status off\nset -g exit-empty off\nset -g history-limit 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", s.sock, "kill-server").Run() })
	return s
}

func (s *tmuxServer) run(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "tmux", append([]string{"-L", s.sock, "-f", s.conf}, args...)...).CombinedOutput()
	return string(out), err
}

// tmuxScreen is what tmux shows after some bytes.
type tmuxScreen struct {
	lines  []string // capture-pane -p, trailing empty rows trimmed
	cx, cy int
	alt    bool
}

func (s *tmuxServer) screen(t *testing.T, data []byte, cols, rows int) tmuxScreen {
	t.Helper()
	name := s.start(t, data, cols, rows, 0)
	defer func() { _, _ = s.run("kill-session", "-t", name) }()
	out, err := s.run("capture-pane", "-p", "-t", name)
	if err != nil {
		t.Fatalf("capture-pane: %v: %s", err, out)
	}
	var sc tmuxScreen
	sc.lines = trimLines(strings.Split(strings.TrimSuffix(out, "\n"), "\n"))
	info, err := s.run("display-message", "-p", "-t", name, "#{cursor_x} #{cursor_y} #{alternate_on} #{pane_width}x#{pane_height}")
	if err != nil {
		t.Fatalf("display-message: %v: %s", err, info)
	}
	var size string
	var alt int
	if _, err := fmt.Sscanf(info, "%d %d %d %s", &sc.cx, &sc.cy, &alt, &size); err != nil {
		t.Fatalf("parse %q: %v", info, err)
	}
	if size != fmt.Sprintf("%dx%d", cols, rows) {
		t.Fatalf("tmux pane is %s, want %dx%d", size, cols, rows)
	}
	sc.alt = alt == 1
	return sc
}

// start runs a session of cols x rows keeping history lines of history
// that shows data, and returns its name once tmux has drawn it all.
func (s *tmuxServer) start(t *testing.T, data []byte, cols, rows, history int) string {
	t.Helper()
	s.n++
	name := fmt.Sprintf("s%d", s.n)
	file := filepath.Join(s.dir, name+".bin")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	done := "vt-done-" + name
	cmd := fmt.Sprintf("stty -opost -echo; cat %s; printf '\\033]2;%s\\007'; exec sleep 600", file, done)
	// The history limit is a pane's from its start.
	if out, err := s.run("start-server", ";", "set-option", "-g", "history-limit", strconv.Itoa(history), ";",
		"new-session", "-d", "-s", name, "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows), cmd); err != nil {
		t.Fatalf("tmux new-session: %v: %s", err, out)
	}
	var out string
	var err error
	testwait.Until(t, 20*time.Second, func() bool {
		out, err = s.run("display-message", "-p", "-t", name, "#{pane_title}")
		return err == nil && strings.TrimSpace(out) == done
	}, func() string { return fmt.Sprintf("tmux never drew the bytes (title %q, err %v)", out, err) })
	return name
}

func trimLines(lines []string) []string {
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// ourLines is the screen as text, trailing empty rows trimmed.
func ourLines(term *Terminal) []string {
	_, rows := term.Size()
	lines := make([]string, rows)
	for y := range lines {
		lines[y] = term.Text(y)
	}
	return trimLines(lines)
}

// sameText compares a row of ours with tmux's. tmux's capture-pane prints
// cells drawn in the DEC line-drawing set as the ASCII they were sent as
// ("q" for ─), where this emulator stores the line-drawing character.
func sameText(ours, theirs string) bool {
	if ours == theirs {
		return true
	}
	o, th := []rune(ours), []rune(theirs)
	if len(o) != len(th) {
		return false
	}
	for i := range o {
		if o[i] == th[i] {
			continue
		}
		if th[i] >= 0x5f && th[i] <= 0x7e && decGraphics[th[i]-0x5f] == o[i] {
			continue
		}
		return false
	}
	return true
}

// diffScreens returns a description of the differences, or "".
func diffScreens(ours []string, theirs tmuxScreen, cx, cy int, alt bool) string {
	var b strings.Builder
	for y := range max(len(ours), len(theirs.lines)) {
		var o, th string
		if y < len(ours) {
			o = ours[y]
		}
		if y < len(theirs.lines) {
			th = theirs.lines[y]
		}
		if !sameText(o, th) {
			fmt.Fprintf(&b, "row %d:\n  ours %q\n  tmux %q\n", y, o, th)
		}
	}
	if cx != theirs.cx || cy != theirs.cy {
		fmt.Fprintf(&b, "cursor: ours %d,%d tmux %d,%d\n", cx, cy, theirs.cx, theirs.cy)
	}
	if alt != theirs.alt {
		fmt.Fprintf(&b, "alternate screen: ours %v tmux %v\n", alt, theirs.alt)
	}
	return b.String()
}

// tmuxCursorX converts our cursor column to tmux's: with the deferred wrap
// pending tmux puts the cursor one past the last column.
func tmuxCursorX(term *Terminal) (int, int) {
	term.mu.Lock()
	defer term.mu.Unlock()
	if term.wrapNext {
		return term.x + 1, term.y
	}
	return term.x, term.y
}

// knownRecordingDiffs documents where a recording legitimately differs
// from tmux, keyed by name@checkpoint; the test checks the difference is
// exactly this.
var knownRecordingDiffs = map[string]struct{ diff, why string }{
	// top fills the last row to the last column, then sends EL.
	"top@3183": {"cursor: ours 79,23 tmux 80,23\n", xtermEL},
}

// TestRecordingsMatchTmux replays each recording of a real program (see
// capture_test.go) up to each checkpoint and compares the screen, cursor
// and alternate-screen state with tmux's after the same bytes.
func TestRecordingsMatchTmux(t *testing.T) {
	recs, data := loadRecordings(t)
	tm := newTmux(t)
	for _, r := range recs {
		for _, cp := range r.Checkpoints {
			t.Run(fmt.Sprintf("%s@%d", r.Name, cp), func(t *testing.T) {
				prefix := data[r.Name][:cp]
				term := New(r.Cols, r.Rows, Options{})
				defer term.Close()
				term.Write(prefix)
				theirs := tm.screen(t, prefix, r.Cols, r.Rows)
				cx, cy := tmuxCursorX(term)
				d := diffScreens(ourLines(term), theirs, cx, cy, term.AltScreen())
				known, ok := knownRecordingDiffs[fmt.Sprintf("%s@%d", r.Name, cp)]
				switch {
				case ok && d == known.diff:
					t.Logf("known difference (%s):\n%s", known.why, d)
				case ok:
					t.Errorf("%s (%s) after %d bytes: expected the known difference\n%s(%s)\ngot\n%s",
						r.Name, r.Command, cp, known.diff, known.why, d)
				case d != "":
					t.Errorf("%s (%s) differs from tmux after %d bytes:\n%s", r.Name, r.Command, cp, d)
				}
			})
		}
	}
}

// allRows returns a session's rows, history then screen (joined where
// they wrapped if join is set), trailing empty rows left out, and the
// cursor's column and row among them.
func (s *tmuxServer) allRows(t *testing.T, name string, join bool) (rows []string, cx, cy int) {
	t.Helper()
	args := []string{"capture-pane", "-p", "-S", "-", "-E", "-", "-t", name}
	if join {
		args = append(args, "-J")
	}
	out, err := s.run(args...)
	if err != nil {
		t.Fatalf("capture-pane: %v: %s", err, out)
	}
	rows = trimLines(strings.Split(strings.TrimSuffix(out, "\n"), "\n"))
	info, err := s.run("display-message", "-p", "-t", name, "#{cursor_x} #{cursor_y} #{history_size}")
	if err != nil {
		t.Fatalf("display-message: %v: %s", err, info)
	}
	var hsize int
	if _, err := fmt.Sscanf(info, "%d %d %d", &cx, &cy, &hsize); err != nil {
		t.Fatalf("parse %q: %v", info, err)
	}
	return rows, cx, hsize + cy
}

// ourRows is allRows for the emulator (not joined).
func ourRows(term *Terminal) (rows []string, cx, cy int) {
	for i := range term.ScrollbackLen() {
		rows = append(rows, term.ScrollbackText(i))
	}
	_, n := term.Size()
	for y := range n {
		rows = append(rows, term.Text(y))
	}
	cx, cy = tmuxCursorX(term)
	return trimLines(rows), cx, cy + term.ScrollbackLen()
}

// TestReflowMatchesTmux writes an agent's screen (styled prose with wide
// characters and a combining mark, wrapping at 160 columns) to tmux and to
// the emulator, resizes both through the same sizes and compares all the
// rows, history and screen, the lines they join into, and the cursor's
// place among them. Where the screen starts differs: tmux keeps blank rows
// below the cursor and pushes rows into the history instead, this
// emulator drops them first.
func TestReflowMatchesTmux(t *testing.T) {
	var agent bytes.Buffer
	agentScreen(&agent, 40)
	cases := []struct {
		name  string
		data  string
		sizes [][2]int
	}{
		{"narrower and back", agent.String(), [][2]int{{100, 40}, {60, 40}, {160, 40}}},
		{"heights too", agent.String(), [][2]int{{100, 30}, {60, 45}, {133, 20}, {47, 8}, {160, 40}}},
		{"cursor inside a wrapped line", agent.String() + "\x1b[30;77H", [][2]int{{100, 40}, {60, 40}, {37, 40}, {160, 40}}},
		{"short screen", "one line\r\n" + strings.Repeat("界", 70) + "x\r\n$ ", [][2]int{{61, 40}, {9, 40}, {30, 12}, {160, 40}}},
	}
	tm := newTmux(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			name := tm.start(t, []byte(c.data), 160, 40, 100000)
			defer func() { _, _ = tm.run("kill-session", "-t", name) }()
			term := New(160, 40, Options{Scrollback: 100000})
			defer term.Close()
			term.Write([]byte(c.data))
			compare := func(size [2]int) {
				t.Helper()
				theirs, tx, ty := tm.allRows(t, name, false)
				ours, ox, oy := ourRows(term)
				if d := diffScreens(ours, tmuxScreen{lines: theirs, cx: tx, cy: ty}, ox, oy, false); d != "" {
					t.Fatalf("at %dx%d the rows differ from tmux's:\n%s", size[0], size[1], d)
				}
				joined, _, _ := tm.allRows(t, name, true)
				var lines []string
				for _, l := range logicalLines(term) {
					var b strings.Builder
					for _, c := range l {
						b.WriteString(c.s)
					}
					lines = append(lines, b.String())
				}
				if d := diffScreens(lines, tmuxScreen{lines: joined}, 0, 0, false); d != "" {
					t.Fatalf("at %dx%d the lines differ from tmux's:\n%s", size[0], size[1], d)
				}
			}
			compare([2]int{160, 40})
			for _, size := range c.sizes {
				if out, err := tm.run("resize-window", "-t", name, "-x", strconv.Itoa(size[0]), "-y", strconv.Itoa(size[1])); err != nil {
					t.Fatalf("resize-window: %v: %s", err, out)
				}
				term.Resize(size[0], size[1])
				compare(size)
			}
		})
	}
}
