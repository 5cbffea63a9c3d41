package protocol

import (
	"bytes"
	"unicode/utf8"
)

// Kind says what an Event holds.
type Kind int

// The kinds of Event.
const (
	KindEnvelope  Kind = iota + 1 // a [ROUTE] block
	KindGap                       // a <gap> block
	KindMalformed                 // a block that must be refused; Reason says why
)

// String names the kind, for logs and test failures.
func (k Kind) String() string {
	switch k {
	case KindEnvelope:
		return "envelope"
	case KindGap:
		return "gap"
	case KindMalformed:
		return "malformed"
	}
	return "Kind(?)"
}

// Event is one block found in an agent's output.
type Event struct {
	Kind Kind
	// Envelope is the parsed [ROUTE] block (KindEnvelope). For a malformed
	// [ROUTE] block it holds whatever headers could be read, best effort.
	Envelope Envelope
	// HasBody reports that the block had a `body:` line (KindEnvelope).
	HasBody bool
	// Gap is the parsed <gap> block (KindGap, best effort when malformed).
	Gap Gap
	// Block is "route" or "gap".
	Block string
	// Reason says why a KindMalformed block is refused, in words that can
	// be shown to the agent, e.g. "no [/ROUTE] within 500 lines".
	Reason string
	// Raw is the block's text with terminal decoration removed, capped at
	// 4 KiB, for audit and error messages.
	Raw string
}

// Limits of one block (PROTOCOL.md §1).
const (
	// MaxBlockBytes is the largest block text accepted.
	MaxBlockBytes = 64 << 10
	// MaxBlockLines is the most lines a block may span, markers included.
	MaxBlockLines = 500
)

const (
	lineCap  = MaxBlockBytes + 1024 // stripped bytes of one line kept; a longer line is over-long
	tailCap  = 512                  // end of an over-long block line kept to find the end marker
	rawCap   = 4 << 10              // Event.Raw cap
	piece    = 4 << 10              // raw bytes stripped at a time, so buffers grow in steps
	probeWin = 16                   // raw bytes stripped first when probing a line start
)

// lineState is where the input stands relative to line breaks.
type lineState uint8

const (
	lsStart   lineState = iota // at the start of a line (stream start, after LF)
	lsMid                      // bytes of the current line seen
	lsAfterCR                  // a CR ended the last line: further CRs and one LF belong to it
)

// Parser finds [ROUTE] and <gap> blocks in the output of one agent's
// terminal. It is fed raw PTY output in chunks of any size, split anywhere,
// and emits each block once it is complete; the events do not depend on
// how the output was split. Outside a block it keeps nothing but the start
// of the current line; inside one, the block's text up to MaxBlockBytes.
// A Parser is not safe for concurrent use.
//
// How it reads the output:
//   - Escape sequences and control characters are removed (see StripANSI);
//     a sequence never spans a line break. Cursor moves are removed too,
//     not taken as line breaks (a full-screen agent that paints its screen
//     by cursor addressing is better read from a rendered screen).
//   - LF, CR LF, and a run of CRs (with or without a following LF) each end
//     one line; a CR at the start of a line moves nothing and is ignored.
//   - A marker line is decoration (blanks, symbols and punctuation such as
//     ⏺ ● │ > * - • `, at most 128 bytes; no letters, digits, quotes or
//     opening brackets), then [ROUTE] or <gap> in any case, then nothing
//     but decoration, or header text ([ROUTE] key: …), or a child element
//     (<gap><topic>…). Anything else, such as "I will send [ROUTE] later",
//     starts no block. A line of more than MaxBlockBytes+1 KiB (stripped)
//     never does.
//   - The decoration of the marker line is removed from every line of the
//     block: as is, with its glyphs other than box drawing blanked, as
//     spaces of the same width, or else whatever leading part of it a line
//     has. A prefix with vertical bars also removes as many right borders.
//   - The first [/ROUTE] (or </gap>) in a block line ends the block; text
//     before it on the line belongs to the block, text after it is dropped.
//   - On the marker line, and on later header lines of a block that began
//     with headers on its marker line, only known keys split the text.
//   - Inside a [ROUTE] block only a [ROUTE] marker line means the block
//     was left open (its body is free text); inside a <gap> block, either
//     marker does.
//   - MaxBlockLines counts the marker lines; MaxBlockBytes counts the
//     undecorated block text, markers included, lines joined by "\n".
type Parser struct {
	strip    stripper
	line     []byte // stripped text of the current line, at most lineCap bytes
	tail     []byte // last tailCap stripped bytes of an over-long line
	scratch  []byte // strip output of one piece
	probe    []byte // strip output while probing a line start
	overlong bool   // the current line passed lineCap
	skip     bool   // the current line cannot matter: drop its bytes
	decided  bool   // outside a block: the line start looks like a marker
	scanned  int    // offset in line up to which classify has looked
	last     lineState
	blk      *block // the open block, or nil while scanning
}

// NewParser returns a Parser at the start of a stream.
func NewParser() *Parser { return &Parser{} }

// Parse runs a fresh Parser over the whole of s and returns its events.
func Parse(s string) []Event {
	var out []Event
	p := NewParser()
	emit := func(e Event) { out = append(out, e) }
	p.Feed([]byte(s), emit)
	p.Flush(emit)
	return out
}

// Feed consumes one chunk of PTY output (any size, split at any byte, even
// inside a UTF-8 rune or an escape sequence) and calls emit for every block
// completed by it, in order.
func (p *Parser) Feed(chunk []byte, emit func(Event)) {
	// Offsets of the next LF and CR, kept between lines so that a chunk is
	// searched once for each, however many lines it holds.
	nl, cr := -1, -1
	for i := 0; i < len(chunk); {
		if c := chunk[i]; c == '\n' || c == '\r' {
			p.lineBreak(c, emit)
			i++
			continue
		}
		if nl < i {
			nl = indexFrom(chunk, i, '\n')
		}
		if cr < i {
			cr = indexFrom(chunk, i, '\r')
		}
		end := min(nl, cr)
		seg := chunk[i:end]
		if p.last != lsMid && p.blk == nil && end < len(chunk) && !p.mayStart(seg) {
			// Fast path: a whole line outside a block that cannot hold a
			// marker is skipped without being stripped.
			p.last, p.skip = lsMid, true
		} else {
			p.text(seg)
		}
		i = end
	}
}

// indexFrom is the index of the first c in b at or after i, or len(b).
func indexFrom(b []byte, i int, c byte) int {
	if j := bytes.IndexByte(b[i:], c); j >= 0 {
		return i + j
	}
	return len(b)
}

// Flush ends the stream (the agent exited): a pending last line without a
// newline is processed, and a block still open is emitted as KindMalformed.
// The Parser is then ready for a new stream.
func (p *Parser) Flush(emit func(Event)) {
	if p.last == lsMid {
		p.endLine(emit)
	}
	if b := p.blk; b != nil {
		p.fail(b.unterminated(), emit)
	}
	p.Reset()
}

// Reset drops all state, including an open block (the agent restarted).
func (p *Parser) Reset() {
	p.resetLine()
	p.last = lsStart
	p.blk = nil
}

// lineBreak handles one CR or LF. A run of CRs, optionally followed by one
// LF, is a single break; a CR at the start of a line moves nothing, as on a
// terminal, so LF CR is one break too.
func (p *Parser) lineBreak(c byte, emit func(Event)) {
	switch {
	case c == '\r' && p.last != lsMid:
	case c == '\n' && p.last == lsAfterCR:
		p.last = lsStart
	default:
		p.endLine(emit)
		p.last = lsStart
		if c == '\r' {
			p.last = lsAfterCR
		}
	}
}

// mayStart reports whether the raw line seg could be a marker line, by
// classifying its stripped start. Only as much of the line as needed is
// stripped, in windows of growing size.
func (p *Parser) mayStart(seg []byte) bool {
	if c := quickClass(seg); c != undecided {
		return c == candidate
	}
	var s stripper
	buf := p.probe[:0]
	defer func() { p.probe = buf }()
	from, win := 0, probeWin
	for len(seg) > 0 {
		n := min(len(seg), win)
		win *= 2
		buf = s.strip(buf, seg[:n])
		seg = seg[n:]
		var c lineClass
		c, from = classify(buf, from)
		switch c {
		case reject:
			return false
		case candidate:
			return true
		}
	}
	return true
}

// quickClass classifies the raw line seg like classify would its stripped
// text, for the common case of a line that starts with decoration and SGR
// or cursor sequences. It gives up (undecided) on anything else.
func quickClass(seg []byte) lineClass {
	out := 0 // offset in the stripped text
	for i := 0; i < len(seg); {
		if out > maxPrefix {
			return reject
		}
		c := seg[i]
		switch {
		case c == '[' || c == '<':
			return candidate
		case c == 0x1b:
			if j := csiEnd(seg, i); j > i {
				i = j
				continue
			}
			return undecided
		case c < 0x20 && c != '\t', c == 0x7f:
			return undecided
		case c < utf8.RuneSelf:
			if !asciiDeco[c] {
				return reject
			}
			i++
			out++
		default:
			r, n := utf8.DecodeRune(seg[i:])
			if r == utf8.RuneError && n <= 1 {
				return undecided // invalid, cut or interrupted rune: strip to be sure
			}
			if !isDecoration(r) {
				return reject
			}
			i += n
			out += n
			// Rules and borders repeat one glyph: skip its copies unexamined.
			for i+n <= len(seg) && out <= maxPrefix && string(seg[i:i+n]) == string(seg[i-n:i]) {
				i += n
				out += n
			}
		}
	}
	return undecided
}

// csiEnd returns the offset after a well-formed CSI sequence at seg[i:],
// or i when there is none.
func csiEnd(seg []byte, i int) int {
	if i+1 >= len(seg) || seg[i+1] != '[' {
		return i
	}
	j := i + 2
	for j < len(seg) && seg[j] >= 0x20 && seg[j] <= 0x3f {
		j++
	}
	if j < len(seg) && seg[j] >= 0x40 && seg[j] <= 0x7e {
		return j + 1
	}
	return i
}

// text takes the bytes of the current line up to (not including) a break.
func (p *Parser) text(seg []byte) {
	p.last = lsMid
	for len(seg) > 0 && !p.skip {
		n := min(len(seg), piece)
		p.scratch = p.strip.strip(p.scratch[:0], seg[:n])
		seg = seg[n:]
		p.appendStripped(p.scratch)
		if p.blk == nil {
			p.checkStart()
		}
	}
}

// appendStripped adds stripped text to the line: up to lineCap bytes, then
// only the last tailCap bytes.
func (p *Parser) appendStripped(b []byte) {
	if !p.overlong {
		room := lineCap - len(p.line)
		if len(b) <= room {
			p.line = append(p.line, b...)
			return
		}
		p.line = append(p.line, b[:room]...)
		b = b[room:]
		p.overlong = true
	}
	if len(b) >= tailCap {
		p.tail = append(p.tail[:0], b[len(b)-tailCap:]...)
		return
	}
	if drop := len(p.tail) + len(b) - tailCap; drop > 0 {
		p.tail = p.tail[:copy(p.tail, p.tail[drop:])]
	}
	p.tail = append(p.tail, b...)
}

// checkStart drops the current line (outside a block) as soon as its start
// shows it is no marker line.
func (p *Parser) checkStart() {
	if !p.decided {
		var c lineClass
		c, p.scanned = classify(p.line, p.scanned)
		switch c {
		case reject:
			p.dropLine()
			return
		case candidate:
			p.decided = true
		}
	}
	if p.overlong && !p.decided {
		p.dropLine() // a line over the cap that is no marker line
	}
	// An over-long marker line keeps its first lineCap bytes and its tail:
	// it opens a block that is refused for its size (endLine).
}

func (p *Parser) dropLine() {
	p.skip = true
	p.line = p.line[:0]
	p.tail = p.tail[:0]
}

// resetLine prepares for the next line, keeping buffer capacity.
func (p *Parser) resetLine() {
	p.strip = stripper{}
	p.line = p.line[:0]
	p.tail = p.tail[:0]
	p.overlong, p.skip, p.decided = false, false, false
	p.scanned = 0
}

// endLine processes the completed current line.
func (p *Parser) endLine(emit func(Event)) {
	if !p.skip {
		line := removeCaretPaste(p.line)
		switch {
		case p.blk != nil:
			p.blockLine(line, emit)
		case !p.overlong:
			if o, ok := parseOpener(line); ok {
				p.open(o, emit)
			}
		default:
			p.openOverlong(line, emit)
		}
	}
	p.resetLine()
}

// open starts a block at its marker line.
func (p *Parser) open(o opener, emit func(Event)) {
	b := newBlock(o.kind, o.prefix)
	p.blk = b
	b.lines = 1
	rest := o.content[o.mlen:]
	if i := indexFold(rest, b.closer()); i >= 0 {
		b.first(rest[:i])
		b.account(o.content[:o.mlen+i+len(b.closer())])
		p.finish(emit)
		return
	}
	b.first(rest) // before account: an oversized block keeps its headers
	b.account(o.content)
}

// openOverlong handles a marker line longer than lineCap: its kept start
// opens the block (which is past MaxBlockBytes by then), and its end
// marker is looked for in the line's tail, so that the block is refused
// for its size at once, naming the limit, instead of vanishing.
func (p *Parser) openOverlong(line []byte, emit func(Event)) {
	o, ok := parseOpener(line)
	if !ok {
		return
	}
	p.open(o, emit)
	b := p.blk
	if b == nil {
		return // the end marker was within the kept start
	}
	tail := string(p.tail)
	b.account(tail)
	// The end marker may straddle the kept start and the tail.
	seam := string(line[max(len(line)-len(b.closer())+1, 0):]) + tail
	if indexFold(seam, b.closer()) >= 0 {
		p.finish(emit)
	}
}

// blockLine processes one line inside the open block.
func (p *Parser) blockLine(line []byte, emit func(Event)) {
	b := p.blk
	if p.overlong {
		b.lines++
		// Too long to keep: the block is refused, but its end marker is
		// still looked for at the start and the end of the line.
		s := string(line) + string(p.tail)
		b.account(s)
		if indexFold(s, b.closer()) >= 0 {
			p.finish(emit)
		} else {
			p.checkLines(emit)
		}
		return
	}
	if o, ok := parseOpener(line); ok && b.nestsOn(o.kind) {
		p.fail(b.nested(o.kind), emit)
		p.open(o, emit)
		return
	}
	b.lines++
	content := b.undecorate(string(line))
	if i := indexFold(content, b.closer()); i >= 0 {
		b.account(content[:i+len(b.closer())])
		b.take(content[:i])
		p.finish(emit)
		return
	}
	b.account(content)
	b.take(content)
	p.checkLines(emit)
}

// checkLines refuses the open block once it has run MaxBlockLines lines
// without its end marker.
func (p *Parser) checkLines(emit func(Event)) {
	if b := p.blk; b.lines >= MaxBlockLines {
		p.fail(b.tooLong(), emit)
	}
}

// finish emits the completed open block.
func (p *Parser) finish(emit func(Event)) {
	b := p.blk
	p.blk = nil
	emit(b.event())
}

// fail emits the open block as KindMalformed with reason (or the size
// limit, when that was passed first).
func (p *Parser) fail(reason string, emit func(Event)) {
	b := p.blk
	p.blk = nil
	e := b.event()
	if !b.oversized {
		e.Kind, e.Reason = KindMalformed, reason
	}
	emit(e)
}

// retained is the number of bytes the parser holds on to between Feed
// calls, for tests that check memory stays bounded.
func (p *Parser) retained() int {
	n := cap(p.line) + cap(p.tail) + cap(p.scratch) + cap(p.probe)
	if b := p.blk; b != nil {
		n += b.retained()
	}
	return n
}
