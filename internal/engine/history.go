package engine

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/teamlead/teamlead/internal/fsutil"
	"github.com/teamlead/teamlead/internal/textsafe"
	"github.com/teamlead/teamlead/internal/vt"
)

// An agent's screen outlives the console: every few seconds what scrolled
// off its screen is appended to <history>/<agent>.log and the screen itself
// written to <agent>.screen. At the next start both are read back and shown
// above the new run's output, after a line saying when the earlier run
// ended. They are only shown: the agent's parser and screen reader never
// see them, so nothing in them is taken for a message again.

// historyEvery is how often the agents' screens are saved.
const historyEvery = 2 * time.Second

// defaultHistory is how many earlier lines are kept when the agent sets no
// scrollback.
const defaultHistory = 10000

// history is one agent's saved screen.
type history struct {
	dir, name string
	keep      int // lines kept (the agent's scrollback)
	mu        sync.Mutex
	lines     []string // earlier runs, oldest first, shown above the emulator's scrollback
	seen      uint64   // the emulator's ScrolledOff already saved
	saved     int64    // the lastOutput of the last save
	log       *os.File
	logLines  int
}

// loadHistory reads an agent's saved screen, and starts its log anew with
// it (so that the file holds every run, up to keep lines).
func loadHistory(dir, name string, keep int) *history {
	if keep <= 0 {
		keep = defaultHistory
	}
	h := &history{dir: dir, name: name, keep: keep}
	if dir == "" {
		return h
	}
	var lines []string
	read := func(path string) (time.Time, bool) {
		f, err := os.Open(path)
		if err != nil {
			return time.Time{}, false
		}
		defer f.Close()
		st, _ := f.Stat()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64*1024), 1024*1024)
		for sc.Scan() {
			lines = append(lines, textsafe.Line(sc.Text()))
		}
		return st.ModTime(), true
	}
	_, hadLog := read(filepath.Join(dir, name+".log"))
	ended, hadScreen := read(filepath.Join(dir, name+".screen"))
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	if hadLog || hadScreen {
		lines = append(lines, fmt.Sprintf("── earlier run of %s, until %s ──", name, ended.Format("2006-01-02 15:04:05")))
	}
	if len(lines) > keep {
		lines = lines[len(lines)-keep:]
	}
	h.lines = lines
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return h
	}
	_ = os.Remove(filepath.Join(dir, name+".screen"))
	if err := fsutil.WriteFileAtomic(filepath.Join(dir, name+".log"), []byte(joinLines(lines)), 0o600); err != nil {
		return h
	}
	h.log, _ = os.OpenFile(filepath.Join(dir, name+".log"), os.O_WRONLY|os.O_APPEND, 0o600)
	h.logLines = len(lines)
	return h
}

func joinLines(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// save appends what scrolled off term since the last save to the log and
// writes the screen; lastOutput skips an agent that printed nothing since.
func (h *history) save(term *vt.Terminal, lastOutput int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.log == nil || lastOutput == h.saved {
		return
	}
	h.saved = lastOutput
	snap := term.SnapshotSince(h.seen)
	h.seen = snap.ScrolledOff
	var b strings.Builder
	for _, l := range joinWrapped(snap.Scrollback) {
		b.WriteString(l)
		b.WriteByte('\n')
		h.logLines++
	}
	if b.Len() > 0 {
		_, _ = h.log.WriteString(b.String())
	}
	screen := joinWrapped(snap.Screen)
	for len(screen) > 0 && strings.TrimSpace(screen[len(screen)-1]) == "" {
		screen = screen[:len(screen)-1]
	}
	_ = fsutil.WriteFileAtomic(filepath.Join(h.dir, h.name+".screen"), []byte(joinLines(screen)), 0o600)
	if h.logLines > 2*h.keep {
		h.trim()
	}
}

// trim rewrites the log with its last keep lines.
func (h *history) trim() {
	path := filepath.Join(h.dir, h.name+".log")
	b, err := os.ReadFile(path)
	if err != nil {
		return
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) > h.keep {
		lines = lines[len(lines)-h.keep:]
	}
	if fsutil.WriteFileAtomic(path, []byte(joinLines(lines)), 0o600) != nil {
		return
	}
	_ = h.log.Close()
	h.log, _ = os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o600)
	h.logLines = len(lines)
}

// joinWrapped joins soft-wrapped lines into the lines the program wrote.
func joinWrapped(ls []vt.Line) []string {
	var out []string
	var cur strings.Builder
	for _, l := range ls {
		cur.WriteString(l.Text)
		if !l.Wrapped {
			out = append(out, cur.String())
			cur.Reset()
		}
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

func (h *history) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.log != nil {
		_ = h.log.Close()
		h.log = nil
	}
}

// withHistory shows the earlier runs' lines above an agent's emulator.
type withHistory struct {
	term  *vt.Terminal
	lines []string
}

// ScrollbackLen implements Screen.
func (w *withHistory) ScrollbackLen() int { return len(w.lines) + w.term.ScrollbackLen() }

// Render implements Screen: scrolled back past the emulator's own
// scrollback, the earlier lines come first, then the emulator's from its
// top.
func (w *withHistory) Render(offset, width, height int) string {
	own := w.term.ScrollbackLen()
	if offset <= own || len(w.lines) == 0 || width <= 0 || height <= 0 {
		return w.term.Render(offset, width, height)
	}
	k := min(offset-own, len(w.lines)) // earlier lines above the emulator's top
	out := make([]string, 0, height)
	for _, l := range w.lines[len(w.lines)-k:] {
		if len(out) == height {
			break
		}
		out = append(out, padTo(l, width))
	}
	if rest := height - len(out); rest > 0 {
		out = append(out, strings.SplitN(w.term.Render(own, width, rest), "\n", rest)...)
	}
	return strings.Join(out, "\n")
}

func padTo(s string, width int) string {
	s = ansi.Truncate(s, width, "")
	if n := ansi.StringWidth(s); n < width {
		s += strings.Repeat(" ", width-n)
	}
	return s
}

// saveHistory saves every agent's screen every historyEvery until the
// engine stops, and once more then.
func (e *Engine) saveHistory() {
	t := time.NewTicker(historyEvery)
	defer t.Stop()
	for {
		stop := false
		select {
		case <-e.quit:
			stop = true
		case <-t.C:
		}
		for _, s := range e.sinks {
			s.history.save(s.term, s.lastOutput.Load())
		}
		if stop {
			for _, s := range e.sinks {
				s.history.close()
			}
			return
		}
	}
}
