// Package vt is the terminal emulator behind teamlead's agent views: a
// screen model fed with a program's PTY output, read back as text (for the
// protocol parser) or as SGR-styled lines (for the dashboard).
//
// It emulates the xterm subset that full-screen programs use with
// TERM=xterm-256color: cursor movement, erasing, scroll regions,
// insert/delete, SGR with 256 and 24-bit colours, wide and combining
// characters, the alternate screen, autowrap with the deferred wrap at the
// last column, origin and insert modes, tab stops, the DEC line-drawing
// character set, and the queries programs send at start-up (DSR, DA,
// DECRQM, OSC 10/11, XTVERSION, kitty keyboard flags). Escape sequences are
// decoded by github.com/charmbracelet/x/ansi's parser; printable text,
// UTF-8 and control strings (OSC, DCS) are handled here (see parse.go for
// why).
//
// Lines scrolled off the top of the main screen are kept, compactly, in a
// scrollback ring. A Terminal is safe for concurrent use: one goroutine
// writes the program's output while others read.
package vt

import (
	"encoding/binary"
	"io"
	"strings"
	"sync"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/parser"
)

// DefaultScrollback is the number of scrollback lines kept when
// Options.Scrollback is zero.
const DefaultScrollback = 10000

// Size limits applied by New and Resize.
const (
	MaxCols = 4096 // widest screen
	MaxRows = 2048 // tallest screen
)

// Options configures a Terminal.
type Options struct {
	// Scrollback is the number of lines kept above the screen; 0 means
	// DefaultScrollback and a negative value keeps none.
	Scrollback int
	// Reply receives the answers to the program's queries (give it the PTY
	// master). It is written from an internal goroutine through a bounded
	// queue, so Write never blocks on it; nil drops the answers.
	Reply io.Writer
	// NoKittyKeyboard leaves the kitty keyboard protocol query (CSI ? u)
	// unanswered and its push, pop and set requests ignored, so programs
	// keep the legacy key encoding. Answered, Claude Code 2.1.328 pushes
	// flags 5 (disambiguated escape codes, alternate keys): Esc and Ctrl
	// keys are then expected as CSI u sequences (Modes.KittyKeyboard).
	NoKittyKeyboard bool
	// Foreground and Background are the default colours reported to OSC 10
	// and OSC 11 queries (programs pick light or dark themes from them).
	// Zero means white on black.
	Foreground, Background Color
}

// Cell is one character cell of the screen.
type Cell struct {
	// Content is the grapheme shown: a base rune followed by any combining
	// marks; "" for the right half of a wide character; " " for a blank.
	Content string
	// Width is 1, 2 for a wide character, 0 for the right half of one.
	Width int8
	// Style is the cell's colours and attributes.
	Style Style
}

// cell is the packed form of a Cell on the screen: r is the rune, 0 for the
// right half of a wide character, or clusterBit|i for clusters[i]; a holds
// the style id in its low 30 bits and the width in the top two.
type cell struct {
	r rune
	a uint32
}

const (
	clusterBit = 1 << 30
	widthShift = 30
	sidMask    = 1<<widthShift - 1
)

func (c cell) width() int  { return int(c.a >> widthShift) }
func (c cell) sid() uint32 { return c.a & sidMask }
func mkcell(r rune, sid uint32, w int) cell {
	return cell{r: r, a: sid | uint32(w)<<widthShift}
}

// wrapKind is how a row ends.
type wrapKind uint8

const (
	noWrap   wrapKind = iota // a line feed or cursor movement ended it: its logical line ends
	softWrap                 // autowrap went on to the next row: the logical line continues
	// padWrap is softWrap before the last column, which a wide character
	// did not fit in: the column (if blank) is padding, not part of the
	// line, or reflow would put a space before the character.
	padWrap
)

type screen struct {
	lines   [][]cell   // the rows, top first
	wrapped []wrapKind // per row: how it ends
	logs    []rowLog   // per row: its scrollback encoding so far (see rowLog)
	noLogs  bool       // the logs are kept invalid: no scrollback (the alternate screen's)
	base    [][]cell   // backing arrays lines, wrapped and logs slide along (see slide)
	baseW   []wrapKind
	baseL   []rowLog
	saved   savedCursor
}

type savedCursor struct {
	valid    bool
	x, y     int
	wrapNext bool
	pen      Style
	origin   bool
	autowrap bool
	charsets [4]byte
	gl       int
}

// Terminal is an emulated terminal. Create it with New.
type Terminal struct {
	mu sync.Mutex

	cols, rows int
	main, alt  screen
	cur        *screen
	altActive  bool

	x, y     int
	wrapNext bool // the deferred wrap: the last column was just written
	pen      Style
	penSID   uint32
	penOK    bool
	eraseBG  Color
	eraseSID uint32

	top, bottom int // scroll region, inclusive
	tabs        []bool
	charsets    [4]byte
	gl          int
	zwj         bool // the last printed rune was a zero-width joiner
	lastRune    rune // for REP

	m       modeState
	noKitty bool

	title      string
	titleStack []string
	fg, bg     Color
	palette    map[uint8]Color
	bells      uint64

	styles     []Style
	styleHash  []uint32 // open-addressing index of styles (see intern)
	styleLimit int
	styleFloor int // styleLimit never goes below this (minStyleLimit)
	clusters   []string
	clusterIdx map[string]uint32
	clusterLim int

	sb          ring
	scrolledOff uint64
	sbLent      int // the scrollback's newest rows that resizes pushed off the screen, for a roomier screen to take back
	slab        []byte
	sbRuns      []byte // scratch buffers for pushScrollback
	sbText      []byte
	sbSegs      []byte
	runPen      Style                           // the pen whose run encoding runPenEnc holds
	runPenEnc   [3 * binary.MaxVarintLen64]byte // (see logRun)
	runPenN     int
	blank       []cell // a row of default blanks to copy (see fillRow)

	p        *ansi.Parser
	params   [parser.MaxParamsSize]ansi.Param // fastCSI's parameters
	st       uint8
	strKind  uint8
	strBuf   []byte
	u8       [4]byte
	u8n      int
	u8need   int
	replyBuf []byte

	reply *replier
}

// minStyleLimit is the smallest size the style table grows to before
// unused styles are dropped.
const minStyleLimit = 4096

type modeState struct {
	autowrap, origin, insert, lnm        bool
	cursorHidden, cursorBlink            bool
	appCursor, appKeypad, reverseVideo   bool
	bracketedPaste, focus, sync, unicode bool
	mouse, mouseEnc                      int
	cursorStyle                          int
	kitty                                []int
}

// New returns a terminal of cols x rows cells.
func New(cols, rows int, opts Options) *Terminal {
	cols, rows = clampSize(cols, rows)
	n := opts.Scrollback
	if n == 0 {
		n = DefaultScrollback
	}
	if n < 0 {
		n = 0
	}
	t := &Terminal{
		cols: cols, rows: rows,
		fg: opts.Foreground, bg: opts.Background, noKitty: opts.NoKittyKeyboard,
		styles:     []Style{{}},
		styleLimit: minStyleLimit,
		styleFloor: minStyleLimit,
		clusterIdx: map[string]uint32{},
		clusterLim: 4096,
		sb:         ring{max: n},
	}
	if t.fg == 0 {
		t.fg = RGBColor(255, 255, 255)
	}
	if t.bg == 0 {
		t.bg = RGBColor(0, 0, 0)
	}
	t.rehashStyles()
	t.main = newScreen(cols, rows)
	t.alt = newScreen(cols, rows)
	t.alt.noLogs = true
	t.alt.invalidateLogs()
	if n == 0 {
		t.main.noLogs = true // nothing to push to
		t.main.invalidateLogs()
	}
	t.cur = &t.main
	t.resetState()
	t.p = ansi.NewParser()
	t.p.SetDataSize(1) // OSC and DCS strings are collected here, not by the parser
	t.p.SetHandler(ansi.Handler{
		Execute:   t.execute,
		HandleCsi: t.csi,
		HandleEsc: t.esc,
		Print:     func(r rune) { t.printRune(r) },
	})
	if opts.Reply != nil {
		t.reply = newReplier(opts.Reply)
	}
	return t
}

func clampSize(cols, rows int) (int, int) {
	return max(1, min(cols, MaxCols)), max(1, min(rows, MaxRows))
}

func newScreen(cols, rows int) screen {
	s := screen{lines: make([][]cell, rows), wrapped: make([]wrapKind, rows), logs: make([]rowLog, rows)}
	for i := range s.lines {
		s.lines[i] = blankRow(cols, 0)
	}
	s.resetLogs(0)
	return s
}

func blankRow(cols int, sid uint32) []cell {
	r := make([]cell, cols)
	fillBlank(r, sid)
	return r
}

// fillRow fills r with blanks of style sid, copying default blanks from
// t.blank: one memmove for the row each line scrolled brings in.
func (t *Terminal) fillRow(r []cell, sid uint32) {
	if sid != 0 {
		fillBlank(r, sid)
		return
	}
	if len(t.blank) < len(r) {
		t.blank = blankRow(len(r), 0)
	}
	copy(r, t.blank)
}

func fillBlank(r []cell, sid uint32) {
	if len(r) == 0 {
		return
	}
	// Doubling copies: memmove fills a whole row (on every line scrolled)
	// several times faster than a store per cell.
	r[0] = mkcell(' ', sid, 1)
	for n := 1; n < len(r); n *= 2 {
		copy(r[n:], r[:n])
	}
}

// resetState puts modes, cursor, pen, margins, tab stops and character
// sets in their power-on state (the screens are left alone).
func (t *Terminal) resetState() {
	t.x, t.y, t.wrapNext = 0, 0, false
	t.pen, t.penOK = Style{}, false
	t.top, t.bottom = 0, t.rows-1
	t.charsets = [4]byte{'B', 'B', 'B', 'B'}
	t.gl = 0
	t.zwj = false
	t.lastRune = 0
	t.m = modeState{autowrap: true}
	t.tabs = make([]bool, t.cols)
	for i := 8; i < t.cols; i += 8 {
		t.tabs[i] = true
	}
	t.main.saved = savedCursor{}
	t.alt.saved = savedCursor{}
}

// Close stops the goroutine that writes replies. Replies still queued are
// dropped; a write already in progress ends when the writer returns (close
// the PTY to make it return).
func (t *Terminal) Close() {
	if t.reply != nil {
		t.reply.close()
	}
}

// writeChunk bounds how long Write holds the lock at a time, so readers
// are not kept waiting behind a large burst.
const writeChunk = 16 << 10

// Write feeds program output to the terminal. Chunks may split escape
// sequences and UTF-8 anywhere. It never fails and never blocks on the
// reply writer.
func (t *Terminal) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		c := min(len(p), writeChunk)
		t.mu.Lock()
		t.feed(p[:c])
		t.mu.Unlock()
		p = p[c:]
	}
	return n, nil
}

// Size returns the screen size in cells.
func (t *Terminal) Size() (cols, rows int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.cols, t.rows
}

// Cursor returns the cursor position (0-based) and whether it is shown.
func (t *Terminal) Cursor() (x, y int, visible bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.x, t.y, !t.m.cursorHidden
}

// Title returns the window title the program set (OSC 0 or 2).
func (t *Terminal) Title() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.title
}

// AltScreen reports whether the alternate screen is shown.
func (t *Terminal) AltScreen() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.altActive
}

// BracketedPaste reports whether the program enabled bracketed paste
// (mode 2004): pasted text should then be sent between ESC[200~ and ESC[201~.
func (t *Terminal) BracketedPaste() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.m.bracketedPaste
}

// Bells returns the number of BEL characters received so far.
func (t *Terminal) Bells() uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.bells
}

// Mouse tracking modes, as reported in Modes.Mouse.
const (
	MouseNone   = 0    // no mouse reports
	MouseX10    = 9    // button presses only
	MouseNormal = 1000 // presses and releases
	MouseButton = 1002 // and motion while a button is down
	MouseAny    = 1003 // and all motion
)

// Modes is the state of the terminal modes a program can set, for the
// input side (how to encode keys, mouse and paste) and for the UI.
type Modes struct {
	AppCursorKeys  bool // DECCKM (1): arrows send ESC O A
	AppKeypad      bool // DECKPAM (ESC =)
	Autowrap       bool // DECAWM (7)
	Origin         bool // DECOM (6)
	Insert         bool // IRM (4)
	LineFeedNL     bool // LNM (20): LF also returns the carriage
	ReverseVideo   bool // DECSCNM (5)
	CursorVisible  bool // DECTCEM (25)
	CursorBlink    bool // 12
	CursorStyle    int  // DECSCUSR parameter (0 = default)
	AltScreen      bool // 47, 1047, 1049
	BracketedPaste bool // 2004
	FocusEvents    bool // 1004
	SyncOutput     bool // 2026: the program is in the middle of a frame
	Mouse          int  // MouseNone, MouseX10, MouseNormal, MouseButton or MouseAny
	MouseSGR       bool // 1006: SGR mouse encoding
	KittyKeyboard  int  // the kitty keyboard protocol flags in force (CSI > flags u)
}

// Modes returns the current modes.
func (t *Terminal) Modes() Modes {
	t.mu.Lock()
	defer t.mu.Unlock()
	k := 0
	if n := len(t.m.kitty); n > 0 {
		k = t.m.kitty[n-1]
	}
	return Modes{
		AppCursorKeys: t.m.appCursor, AppKeypad: t.m.appKeypad,
		Autowrap: t.m.autowrap, Origin: t.m.origin, Insert: t.m.insert,
		LineFeedNL: t.m.lnm, ReverseVideo: t.m.reverseVideo,
		CursorVisible: !t.m.cursorHidden, CursorBlink: t.m.cursorBlink,
		CursorStyle: t.m.cursorStyle, AltScreen: t.altActive,
		BracketedPaste: t.m.bracketedPaste, FocusEvents: t.m.focus,
		SyncOutput: t.m.sync, Mouse: t.m.mouse, MouseSGR: t.m.mouseEnc == 1006,
		KittyKeyboard: k,
	}
}

// Row returns a copy of screen row y (nil if out of range).
func (t *Terminal) Row(y int) []Cell {
	t.mu.Lock()
	defer t.mu.Unlock()
	if y < 0 || y >= t.rows {
		return nil
	}
	row := t.cur.lines[y]
	out := make([]Cell, len(row))
	for i, c := range row {
		out[i] = Cell{Content: t.content(c), Width: int8(c.width()), Style: t.styles[c.sid()]}
	}
	return out
}

// Text returns screen row y as text, trailing blanks trimmed.
func (t *Terminal) Text(y int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if y < 0 || y >= t.rows {
		return ""
	}
	return t.rowText(t.cur.lines[y])
}

// Wrapped reports whether screen row y was soft-wrapped into row y+1 by
// autowrap (rather than ended by a line feed or cursor movement).
func (t *Terminal) Wrapped(y int) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return y >= 0 && y < t.rows && t.cur.wrapped[y] != noWrap
}

// ScrollbackLen returns the number of lines in the scrollback.
func (t *Terminal) ScrollbackLen() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.sb.n
}

// ScrollbackText returns scrollback line i (0 = oldest) as text, trailing
// blanks trimmed.
func (t *Terminal) ScrollbackText(i int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if i < 0 || i >= t.sb.n {
		return ""
	}
	return t.sb.get(i).text()
}

// ScrollbackWrapped reports whether scrollback line i was soft-wrapped into
// the line after it.
func (t *Terminal) ScrollbackWrapped(i int) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return i >= 0 && i < t.sb.n && t.sb.get(i).wrapped()
}

// ScrolledOff returns the number of lines ever moved from the screen into
// the scrollback (including those since dropped from it or erased). A
// resize that reflows the scrollback renumbers its lines: they count as
// they are laid out at the new width, and those a roomier screen takes
// back no longer count.
func (t *Terminal) ScrolledOff() uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.scrolledOff
}

// Line is one line of text in a Snapshot.
type Line struct {
	Text    string // the line, trailing blanks trimmed unless the terminal wrapped it there (a blank at the wrap is part of the line)
	Wrapped bool   // soft-wrapped into the next line
}

// Snapshot is a consistent copy of the terminal's text.
type Snapshot struct {
	// Scrollback holds scrollback lines, oldest first. Scrollback[i] is
	// line number ScrolledOff-len(Scrollback)+i of all the lines ever
	// scrolled off, so a reader can tell which it has already seen.
	Scrollback []Line
	// Screen holds the screen rows, top first.
	Screen []Line
	// ScrolledOff is the number of lines ever moved into the scrollback.
	ScrolledOff uint64
	// CursorX and CursorY are the cursor position.
	CursorX, CursorY int
	// AltScreen reports whether the alternate screen is shown.
	AltScreen bool
}

// Snapshot returns the scrollback and the screen as text. It copies a line
// header per scrollback line (the text itself is shared): a reader that
// polls should use SnapshotSince or SnapshotTail.
func (t *Terminal) Snapshot() Snapshot { return t.SnapshotSince(0) }

// SnapshotSince is Snapshot with only the scrollback lines numbered seen or
// later (pass the ScrolledOff of the previous snapshot to get only the new
// ones).
func (t *Terminal) SnapshotSince(seen uint64) Snapshot {
	t.mu.Lock()
	defer t.mu.Unlock()
	first := t.scrolledOff - uint64(t.sb.n)
	from := 0
	if seen > first {
		from = int(min(seen-first, uint64(t.sb.n)))
	}
	return t.snapshot(from)
}

// SnapshotTail is Snapshot with at most the n most recent scrollback lines.
func (t *Terminal) SnapshotTail(n int) Snapshot {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.snapshot(max(0, t.sb.n-max(n, 0)))
}

// snapshot copies the scrollback from line from on, and the screen.
func (t *Terminal) snapshot(from int) Snapshot {
	s := Snapshot{ScrolledOff: t.scrolledOff, CursorX: t.x, CursorY: t.y, AltScreen: t.altActive}
	if from < t.sb.n {
		s.Scrollback = make([]Line, 0, t.sb.n-from)
		for i := from; i < t.sb.n; i++ {
			l := t.sb.get(i)
			text := l.text()
			if l.kind() == softWrap {
				body, off, _ := l.parts()
				text = body[off:]
			}
			s.Scrollback = append(s.Scrollback, Line{Text: text, Wrapped: l.wrapped()})
		}
	}
	s.Screen = make([]Line, t.rows)
	for y := range t.rows {
		s.Screen[y] = Line{Text: t.rowTextTo(t.cur.lines[y], t.cur.wrapped[y] == softWrap), Wrapped: t.cur.wrapped[y] != noWrap}
	}
	return s
}

var asciiStrings = func() (s [128]string) {
	for i := range s {
		s[i] = string(rune(i))
	}
	return
}()

func (t *Terminal) content(c cell) string {
	switch {
	case c.r == 0:
		return ""
	case c.r < 0x80:
		return asciiStrings[c.r]
	case c.r&clusterBit != 0:
		return t.clusters[c.r&^clusterBit]
	}
	return string(c.r)
}

func (t *Terminal) rowText(row []cell) string { return t.rowTextTo(row, false) }

// rowTextTo is rowText, keeping the trailing blanks when whole is set: a
// row the terminal wrapped, whose last blank joins two words of one line
// (trimmed, "hello " + "world" read "helloworld", and a block read again
// after a reflow moved its wraps would look like a new one).
func (t *Terminal) rowTextTo(row []cell, whole bool) string {
	end := len(row)
	for !whole && end > 0 && row[end-1].r == ' ' {
		end--
	}
	var b strings.Builder
	b.Grow(end)
	for _, c := range row[:end] {
		switch {
		case c.r == 0:
		case c.r < 0x80:
			b.WriteByte(byte(c.r))
		case c.r&clusterBit != 0:
			b.WriteString(t.clusters[c.r&^clusterBit])
		default:
			b.WriteRune(c.r)
		}
	}
	return b.String()
}
