// Package screenscan reads [ROUTE] and <gap> blocks off the rendered screen
// of a full-screen agent (parse: screen). Such programs place words by
// cursor addressing, repaint the same block many times, draw partial copies
// while a reply streams, and overwrite their input box between the rows of
// what they print: the byte stream is useless there, but the screen, once
// drawn, holds the block as a person sees it.
//
// Each Scan looks at the screen and the recent scrollback, joins rows the
// program wrapped at the terminal width, parses the text and keeps only
// complete blocks. A block is emitted once it is stable, in sight unchanged
// for Settle (a half-repainted frame can show a complete-looking block with
// a row cut short, but only for as long as the program takes to write the
// rest of the frame), and only once while it stays
// in sight, so it is processed once however often it is redrawn or
// scrolled; mid-frame, a scrolling block can even show at its old and new
// place at once. An identical block counts as new only after the old one
// has been out of sight for forgetAfter.
package screenscan

import (
	"hash/fnv"
	"regexp"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/teamlead/teamlead/internal/protocol"
	"github.com/teamlead/teamlead/internal/vt"
)

const (
	// ScrollbackWindow is how many scrollback lines above the screen each
	// scan reads, so a block whose top scrolled off is still read whole
	// (callers take a vt.Terminal.SnapshotTail of it).
	ScrollbackWindow = protocol.MaxBlockLines
	// forgetAfter is how long a block must have been out of sight before an
	// identical one counts as a new message.
	forgetAfter = time.Minute
	// maxRemembered bounds the blocks remembered.
	maxRemembered = 4096
	// Settle is how long a block must stay in sight, unchanged, to count.
	Settle = 20 * time.Millisecond
)

// seenBlock is what the scanner remembers of a block it emitted.
type seenBlock struct {
	emitted  bool      // already emitted
	since    time.Time // start of its current time in sight; zero when out of sight
	lastSeen time.Time // when it was last in sight
}

// Scanner reads one agent's screen. It is not safe for concurrent use.
type Scanner struct {
	seen map[uint64]*seenBlock
}

// New returns a scanner with nothing seen.
func New() *Scanner { return &Scanner{seen: map[uint64]*seenBlock{}} }

// Scan reads the terminal's current text and emits the stable blocks not
// emitted before. width is the terminal's width, used to recognise rows a
// program wrapped itself. It reports whether blocks are waiting to be seen
// again: the caller should scan once more after Settle even if the agent
// prints nothing more.
func (s *Scanner) Scan(snap vt.Snapshot, width int, now time.Time, emit func(protocol.Event)) (unsettled bool) {
	lines := snap.Scrollback
	if len(lines) > ScrollbackWindow {
		lines = lines[len(lines)-ScrollbackWindow:]
	}
	rows := make([]vt.Line, 0, len(lines)+len(snap.Screen))
	rows = append(append(rows, lines...), snap.Screen...)
	text := Join(rows, width)

	s.forget(now)
	visible := map[uint64]bool{}
	var fresh []protocol.Event
	for _, ev := range protocol.Parse(text) {
		if !complete(ev) {
			continue
		}
		fp := fingerprint(ev)
		if visible[fp] {
			continue
		}
		visible[fp] = true
		b := s.seen[fp]
		if b == nil {
			b = &seenBlock{}
			s.seen[fp] = b
		}
		b.lastSeen = now
		if b.since.IsZero() {
			b.since = now
		}
		switch {
		case b.emitted:
		case now.Sub(b.since) >= Settle:
			b.emitted = true
			fresh = append(fresh, ev)
		default:
			unsettled = true
		}
	}
	for fp, b := range s.seen {
		if !visible[fp] {
			b.since = time.Time{}
		}
	}
	s.forget(now) // again, to bound what this scan added
	for _, ev := range fresh {
		emit(ev)
	}
	return unsettled
}

// forget drops blocks out of sight for long enough, so that an identical
// message sent much later counts again, and bounds the memory.
func (s *Scanner) forget(now time.Time) {
	for fp, b := range s.seen {
		if now.Sub(b.lastSeen) > forgetAfter {
			delete(s.seen, fp)
		}
	}
	for len(s.seen) > maxRemembered {
		var oldest uint64
		var at time.Time
		for fp, b := range s.seen {
			if at.IsZero() || b.lastSeen.Before(at) {
				oldest, at = fp, b.lastSeen
			}
		}
		delete(s.seen, oldest)
	}
}

// complete reports whether ev is a whole block. A block still being drawn
// (no end marker yet, or cut by the next block's start in a half-repainted
// frame) is not an error on a screen: it is read once it is complete.
func complete(ev protocol.Event) bool {
	if ev.Kind == protocol.KindEnvelope {
		return !repeatedHeader(&ev.Envelope)
	}
	if ev.Kind != protocol.KindMalformed {
		return true
	}
	r := ev.Reason
	return !strings.HasPrefix(r, "no [/ROUTE]") && !strings.HasPrefix(r, "no </gap>") && !strings.HasPrefix(r, "unterminated")
}

// repeatedHeader reports whether a header key appears twice: on a screen
// that is a row the program has not overwritten yet, not a message.
func repeatedHeader(e *protocol.Envelope) bool {
	for i, h := range e.Headers {
		for _, g := range e.Headers[:i] {
			if g.Key == h.Key {
				return true
			}
		}
	}
	return false
}

func fingerprint(ev protocol.Event) uint64 {
	switch ev.Kind {
	case protocol.KindEnvelope:
		return protocol.Fingerprint(&ev.Envelope)
	case protocol.KindGap:
		return hash("gap", ev.Gap.Topic, ev.Gap.Question, ev.Gap.Context, ev.Gap.Urgency)
	}
	return hash("malformed", ev.Reason, strings.Join(strings.Fields(ev.Raw), " "))
}

func hash(parts ...string) uint64 {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return h.Sum64()
}

// headerOrMarker matches a row that starts something of its own: a header
// line, a block marker or a gap element. Such a row is never the
// continuation of a wrapped row.
var headerOrMarker = regexp.MustCompile(`^\s*[^\s\w]*\s*(\[/?ROUTE\]|</?gap>|<[a-z]+>|[A-Za-z][\w-]*:(\s|$))`)

// Join turns screen rows into text lines: a row the terminal wrapped
// (autowrap) continues on the next row without a separator, and a row that
// the program itself wrapped at a word boundary (the next row's first word
// would not have fitted) continues with one space.
func Join(rows []vt.Line, width int) string {
	var b strings.Builder
	continued := false // this row continues a program-wrapped one: drop its indentation
	for i, r := range rows {
		text := unboxed(r.Text, width)
		if continued {
			text = strings.TrimLeft(text, " ")
		}
		b.WriteString(text)
		if i == len(rows)-1 {
			break
		}
		continued = false
		switch {
		case r.Wrapped:
			// the terminal wrapped it: the next row continues it directly
		case programWrapped(r.Text, rows[i+1].Text, width):
			b.WriteByte(' ')
			continued = true
		default:
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// unboxed drops the right border of a row a program drew inside a box
// ("┃ text   ┃", as GitHub Copilot CLI frames a prompt): the padding and
// border are not part of the text (an echo of typed text would otherwise
// not be known again, and be read as the agent's own words). A row whose
// left border is not drawn (the box's first row, after its prompt) loses
// a right border in the screen's last column after padding (width: the
// screen's; 0 when unknown).
func unboxed(row string, width int) string {
	t := strings.TrimRight(row, " ")
	l := strings.TrimLeft(t, " ")
	for _, b := range []string{"┃", "│"} {
		if len(l) > len(b) && strings.HasPrefix(l, b) && strings.HasSuffix(t, b) {
			return strings.TrimRight(strings.TrimSuffix(t, b), " ")
		}
		if body := strings.TrimSuffix(t, b); width > 0 && body != t && strings.HasSuffix(body, "  ") &&
			strings.TrimSpace(body) != "" && ansi.StringWidth(t) == width {
			return strings.TrimRight(body, " ")
		}
	}
	return row
}

// programWrapped reports whether a program that wraps its own text at the
// terminal width broke row here: the row is indented like its continuation,
// and the continuation's first word would not have fitted after it.
func programWrapped(row, next string, width int) bool {
	if width <= 0 || strings.TrimSpace(row) == "" || strings.TrimSpace(next) == "" || headerOrMarker.MatchString(next) {
		return false
	}
	indent := len(next) - len(strings.TrimLeft(next, " "))
	if indent == 0 || leadWidth(row) != indent {
		return false
	}
	word, _, _ := strings.Cut(strings.TrimLeft(next, " "), " ")
	return ansi.StringWidth(row)+1+ansi.StringWidth(word) > width-margin(width)
}

// margin is the right-hand space programs leave when they wrap (Claude Code
// wraps a couple of columns short of the edge).
func margin(width int) int { return min(4, width/20) }

// leadWidth is the width of row's leading blanks and decoration glyphs
// (the "● " that starts a reply stands in for the indentation).
func leadWidth(row string) int {
	w := 0
	for _, r := range row {
		if r != ' ' && !strings.ContainsRune("●⏺•*->│┃❯⎿", r) {
			break
		}
		w += ansi.StringWidth(string(r))
	}
	return w
}
