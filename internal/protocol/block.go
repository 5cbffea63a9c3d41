package protocol

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// blockKind is the kind of an open block.
type blockKind uint8

const (
	routeBlock blockKind = iota // [ROUTE] … [/ROUTE]
	gapBlock                    // <gap> … </gap>
)

// opener is a parsed marker line that starts a block.
type opener struct {
	kind    blockKind
	prefix  string // decoration before the marker
	content string // from the marker to the end of the line, right border and blanks removed
	mlen    int    // length of the marker in content
}

// parseOpener reports whether line (stripped) starts a block: optional
// decoration, then [ROUTE] or <gap> in any case, then nothing but
// decoration, or header text (route), or child elements (gap). So "I will
// send [ROUTE] later" and "[ROUTE] blocks are …" start nothing.
func parseOpener(line []byte) (opener, bool) {
	c, i := classify(line, 0)
	if c != candidate {
		return opener{}, false
	}
	var o opener
	switch {
	case hasFoldPrefix(line[i:], "[route]"):
		o.kind, o.mlen = routeBlock, len("[route]")
	case hasFoldPrefix(line[i:], "<gap>"):
		o.kind, o.mlen = gapBlock, len("<gap>")
	default:
		return opener{}, false
	}
	o.prefix = string(line[:i])
	o.content = strings.TrimRight(trimBorder(string(line[i:]), countBars(o.prefix)), " \t")
	rest := strings.TrimSpace(o.content[o.mlen:])
	ok := rest == "" || allDecoration(rest)
	if !ok && o.kind == routeBlock {
		ok = startsHeader(rest) || hasFoldPrefix(rest, "[/route]")
	}
	if !ok && o.kind == gapBlock {
		ok = rest[0] == '<'
	}
	return o, ok
}

// startsHeader reports whether s begins with `key:`.
func startsHeader(s string) bool {
	i := strings.IndexByte(s, ':')
	return i > 0 && validKey(s[:i])
}

// block is the state of an open block.
type block struct {
	kind    blockKind
	prefix  string // decoration of the marker line, removed from every line
	spaced  string // prefix with glyphs other than box drawing replaced by spaces
	blank   string // spaces as wide as prefix
	width   int    // display width of prefix
	bars    int    // vertical borders in prefix: as many right borders are removed
	oneLine bool   // the marker line carried headers: known keys split header lines

	lines     int  // lines so far, marker lines included
	size      int  // bytes of block text so far
	oversized bool // size passed MaxBlockBytes: content is no longer kept
	raw       []byte
	rawFull   bool

	// [ROUTE]
	headers   []Header
	inBody    bool // body: seen; every further line is body
	body      []byte
	bodyBlank int // blank body lines held back until more text follows

	// <gap>
	content  []byte
	contents int // lines in content
}

// newBlock opens a block whose marker line had the decoration prefix.
func newBlock(kind blockKind, prefix string) *block {
	b := &block{kind: kind, prefix: prefix, bars: countBars(prefix)}
	var spaced strings.Builder
	for _, r := range prefix {
		w := runeWidth(r)
		b.width += w
		if isBox(r) || r == ' ' || r == '\t' {
			spaced.WriteRune(r)
		} else {
			spaced.WriteString(strings.Repeat(" ", w))
		}
	}
	b.spaced = spaced.String()
	b.blank = strings.Repeat(" ", b.width)
	return b
}

// closer is the end marker, lower-case.
func (b *block) closer() string {
	if b.kind == gapBlock {
		return "</gap>"
	}
	return "[/route]"
}

// nestsOn reports whether an opener of kind k inside this block means the
// block was left open. A [ROUTE] body is free text, so only [ROUTE] counts
// there; a <gap> holds markup, so either marker does.
func (b *block) nestsOn(k blockKind) bool { return b.kind == gapBlock || k == routeBlock }

// undecorate removes the block's prefix from line: the exact prefix, the
// prefix with glyphs blanked, or as many spaces; failing those, whatever
// leading prefix characters the line has. A right border goes too, and
// trailing blanks.
func (b *block) undecorate(s string) string {
	switch {
	case strings.HasPrefix(s, b.prefix):
		s = s[len(b.prefix):]
	case strings.HasPrefix(s, b.spaced):
		s = s[len(b.spaced):]
	case strings.HasPrefix(s, b.blank):
		s = s[len(b.blank):]
	default:
		s = b.trimPartial(s)
	}
	return strings.TrimRight(trimBorder(s, b.bars), " \t")
}

// trimPartial removes leading spaces and prefix characters from s, no more
// than the prefix's width.
func (b *block) trimPartial(s string) string {
	w := 0
	for i, r := range s {
		if w >= b.width || (r != ' ' && !strings.ContainsRune(b.prefix, r)) {
			return s[i:]
		}
		w += runeWidth(r)
	}
	return ""
}

// account counts one line of block text against MaxBlockBytes and keeps
// it for Raw. Past the limit the block's content is dropped.
func (b *block) account(text string) {
	if b.size > 0 {
		b.size++
	}
	b.size += len(text)
	if b.size > MaxBlockBytes && !b.oversized {
		b.oversized = true
		b.body, b.content = nil, nil
	}
	b.addRaw(text)
}

// addRaw appends one line to raw, up to rawCap bytes, cut at a rune start.
func (b *block) addRaw(text string) {
	if b.rawFull {
		return
	}
	if b.lines > 1 {
		text = "\n" + text
	}
	if room := rawCap - len(b.raw); len(text) > room {
		for room > 0 && !utf8.RuneStart(text[room]) {
			room--
		}
		text = text[:room]
		b.rawFull = true
	}
	b.raw = append(b.raw, text...)
}

// first takes the text after the opening marker on its line.
func (b *block) first(rest string) {
	if allDecoration(rest) { // nothing, or a closing backtick
		return
	}
	b.oneLine = b.kind == routeBlock
	b.take(rest)
}

// take adds one undecorated line to the block's content.
func (b *block) take(s string) {
	s = strings.TrimRight(s, " \t")
	switch {
	case b.oversized:
	case b.kind == gapBlock:
		if b.contents > 0 {
			b.content = append(b.content, '\n')
		}
		b.contents++
		b.content = append(b.content, s...)
	default:
		b.routeLine(s)
	}
}

// routeLine adds one line of a [ROUTE] block: body, header, or the soft-
// wrapped continuation of the previous header.
func (b *block) routeLine(s string) {
	if b.inBody {
		b.bodyLine(s)
		return
	}
	t := strings.TrimSpace(s)
	switch {
	case t == "":
	case b.oneLine:
		b.knownHeaders(t)
	default:
		b.header(t)
	}
}

// header takes one `key: value` line, or continues the previous value.
func (b *block) header(t string) {
	k, v, ok := splitHeader(t)
	switch {
	case !ok:
		if n := len(b.headers); n > 0 {
			if b.headers[n-1].Value == "" {
				b.headers[n-1].Value = t
			} else {
				b.headers[n-1].Value += " " + t
			}
		}
	case k == "body":
		b.inBody = true
		b.bodyLine(v)
	default:
		b.headers = append(b.headers, Header{Key: k, Value: v})
	}
}

// knownHeaders splits t at known keys (the one-line form), text before the
// first key being a line of its own.
func (b *block) knownHeaders(t string) {
	at := knownKeyStarts(t)
	if len(at) == 0 {
		b.header(t)
		return
	}
	if lead := strings.TrimSpace(t[:at[0]]); lead != "" {
		b.header(lead)
	}
	for n, start := range at {
		end := len(t)
		if n+1 < len(at) {
			end = at[n+1]
		}
		b.header(strings.TrimSpace(t[start:end]))
	}
}

// bodyLine adds one body line. Leading and trailing blank lines are dropped.
func (b *block) bodyLine(s string) {
	if strings.TrimSpace(s) == "" {
		if len(b.body) > 0 {
			b.bodyBlank++
		}
		return
	}
	if len(b.body) > 0 {
		for ; b.bodyBlank >= 0; b.bodyBlank-- {
			b.body = append(b.body, '\n')
		}
		b.bodyBlank = 0
	}
	b.body = append(b.body, s...)
}

// knownKeys are the header names that split the one-line form.
var knownKeys = map[string]bool{
	"from": true, "to": true, "type": true, "task": true, "id": true,
	"decision": true, "consult": true, "verdict": true, "supersedes": true,
	"question": true, "topic": true, "permission": true, "priority": true,
	"body": true,
}

// knownKeyStarts returns the offsets in t of known `key:` words (a word
// start, the key, a colon, then a blank or the end), up to and including
// body.
func knownKeyStarts(t string) []int {
	var at []int
	for i := 0; i < len(t); i++ {
		if t[i] != ':' || (i+1 < len(t) && t[i+1] != ' ' && t[i+1] != '\t') {
			continue
		}
		j := i
		for j > 0 && isLetter(t[j-1]) {
			j--
		}
		if j == i || (j > 0 && t[j-1] != ' ' && t[j-1] != '\t') {
			continue
		}
		k := asciiLower(t[j:i])
		if !knownKeys[k] {
			continue
		}
		at = append(at, j)
		if k == "body" {
			break
		}
	}
	return at
}

// splitHeader parses `key: value`. The colon must be followed by a blank
// or the end of the line, unless the key is a known one, so that a
// wrapped "http://…" is not a header.
func splitHeader(t string) (key, value string, ok bool) {
	i := strings.IndexByte(t, ':')
	if i <= 0 || !validKey(t[:i]) {
		return "", "", false
	}
	key = asciiLower(t[:i])
	if i+1 < len(t) && t[i+1] != ' ' && t[i+1] != '\t' && !knownKeys[key] {
		return "", "", false
	}
	return key, strings.TrimSpace(t[i+1:]), true
}

// validKey reports whether k is a header name: a letter, then letters,
// digits, '-', '_' or '.', at most 64 bytes.
func validKey(k string) bool {
	if len(k) == 0 || len(k) > 64 || !isLetter(k[0]) {
		return false
	}
	for i := 1; i < len(k); i++ {
		c := k[i]
		if !isLetter(c) && !(c >= '0' && c <= '9') && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') }

// event builds the Event for the block as it stands. An oversized block is
// KindMalformed; so is a <gap> without topic or question.
func (b *block) event() Event {
	e := Event{Raw: string(b.raw)}
	if b.kind == routeBlock {
		e.Block = "route"
		e.Kind = KindEnvelope
		e.Envelope = Envelope{Headers: b.headers, Body: string(b.body)}
		e.HasBody = b.inBody
	} else {
		e.Block = "gap"
		e.Kind = KindGap
		var missing []string
		e.Gap, missing = parseGap(string(b.content))
		if len(missing) > 0 {
			e.Kind = KindMalformed
			e.Reason = "<gap> without " + strings.Join(missing, " and ")
		}
	}
	if b.oversized {
		e.Kind = KindMalformed
		e.Reason = "block larger than " + strconv.Itoa(MaxBlockBytes>>10) + " KiB"
	}
	return e
}

// names returns the block's markers, for reasons given to agents.
func (b *block) names() (opening, closing string) {
	if b.kind == gapBlock {
		return "<gap>", "</gap>"
	}
	return "[ROUTE]", "[/ROUTE]"
}

// nested is the reason a block left open before a new marker is refused.
func (b *block) nested(k blockKind) string {
	_, c := b.names()
	next := "[ROUTE]"
	if k == gapBlock {
		next = "<gap>"
	}
	return "no " + c + " before the next " + next
}

// tooLong is the reason a block of too many lines is refused.
func (b *block) tooLong() string {
	_, c := b.names()
	return "no " + c + " within " + strconv.Itoa(MaxBlockLines) + " lines"
}

// unterminated is the reason a block open when the output ends is refused.
func (b *block) unterminated() string {
	o, c := b.names()
	return "unterminated " + o + ": no " + c + " before the output ended"
}

// retained is the number of bytes the block holds.
func (b *block) retained() int {
	n := cap(b.raw) + cap(b.body) + cap(b.content) + len(b.prefix) + len(b.spaced) + len(b.blank)
	for _, h := range b.headers {
		n += len(h.Key) + len(h.Value)
	}
	return n
}
