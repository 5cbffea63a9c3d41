// Package protocol holds the wire contract between the console and its
// agents: the [ROUTE] envelope, the <gap> question block, the streaming
// parser that finds them in terminal output, and the canonical text form the
// console types back into agents.
package protocol

import (
	"hash/fnv"
	"sort"
	"strings"
	"unicode/utf8"
)

// Header is one `key: value` line of an envelope. Key is lower-cased.
type Header struct {
	Key   string
	Value string
}

// Envelope is a parsed [ROUTE] block. Headers keep their order of
// appearance and exclude body, which is held separately.
type Envelope struct {
	Headers []Header
	// Body is the body text; lines after `body:` joined with "\n".
	Body string
}

// Get returns the value of the first header named key (case-insensitive),
// or "" when absent.
func (e *Envelope) Get(key string) string {
	key = strings.ToLower(key)
	for _, h := range e.Headers {
		if h.Key == key {
			return h.Value
		}
	}
	return ""
}

// Has reports whether a header named key is present.
func (e *Envelope) Has(key string) bool {
	key = strings.ToLower(key)
	for _, h := range e.Headers {
		if h.Key == key {
			return true
		}
	}
	return false
}

// Set replaces the first header named key, or appends it when absent.
func (e *Envelope) Set(key, value string) {
	key = strings.ToLower(key)
	for i, h := range e.Headers {
		if h.Key == key {
			e.Headers[i].Value = value
			return
		}
	}
	e.Headers = append(e.Headers, Header{Key: key, Value: value})
}

// Del removes every header named key.
func (e *Envelope) Del(key string) {
	key = strings.ToLower(key)
	out := e.Headers[:0]
	for _, h := range e.Headers {
		if h.Key != key {
			out = append(out, h)
		}
	}
	e.Headers = out
}

// Clone returns a deep copy.
func (e Envelope) Clone() Envelope {
	e.Headers = append([]Header(nil), e.Headers...)
	return e
}

// Recipients splits the `to` header into its comma-separated addresses,
// trimmed and without empties.
func (e *Envelope) Recipients() []string {
	var out []string
	for _, part := range strings.Split(e.Get("to"), ",") {
		if p := strings.TrimSpace(part); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Standard message types (seed 001) and the extensions of PROTOCOL.md.
const (
	TypeStatus     = "status"
	TypeQuestion   = "question"
	TypeBlocker    = "blocker"
	TypeHandoff    = "handoff"
	TypeReview     = "review"
	TypePermission = "permission"
	TypeDecision   = "decision"
	TypeConsult    = "consult"
	TypeVerdict    = "verdict"
	TypeAnswer     = "answer"
)

// Types lists every accepted value of the `type` header.
var Types = []string{TypeStatus, TypeQuestion, TypeBlocker, TypeHandoff, TypeReview,
	TypePermission, TypeDecision, TypeConsult, TypeVerdict, TypeAnswer}

// TeamLead is the console's own address.
const TeamLead = "team-lead"

// RequiredHeaders are the headers every envelope must carry (body included).
var RequiredHeaders = []string{"to", "type", "task"}

// Problems lists what makes e unacceptable as a message, in a form that can
// be shown to the agent that wrote it. An empty result means e is valid.
func Problems(e *Envelope, hasBody bool) []string {
	var out []string
	for _, k := range RequiredHeaders {
		if strings.TrimSpace(e.Get(k)) == "" {
			out = append(out, "missing `"+k+":` header")
		}
	}
	if !hasBody {
		out = append(out, "missing `body:` (it must be the last header)")
	}
	if t := strings.ToLower(strings.TrimSpace(e.Get("type"))); t != "" && !validType(t) {
		out = append(out, "unknown type `"+t+"` (use one of "+strings.Join(Types, ", ")+")")
	}
	if e.Has("to") && len(e.Recipients()) == 0 && strings.TrimSpace(e.Get("to")) != "" {
		out = append(out, "empty recipient list in `to:`")
	}
	if t := strings.TrimSpace(e.Get("task")); t != "" && !ValidTask(t) {
		out = append(out, "task id `"+t+"` is not usable: at most 64 characters, no `/`, `\\` or `..` (e.g. T-12, or - for none)")
	}
	out = append(out, twice(e)...)
	return out
}

// ValidTask reports whether t can be a task id: it names records, meta
// keys and files, so it never reads as a path.
func ValidTask(t string) bool {
	if utf8.RuneCountInString(t) > 64 || strings.ContainsAny(t, "/\\") || strings.Contains(t, "..") {
		return false
	}
	for _, r := range t {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}

// singular are the headers that say who, to whom, what and which: given
// twice with different values, the block is ambiguous (a reader could take
// either), so it is refused rather than guessed.
var singular = []string{"from", "to", "type", "task", "id", "consult", "verdict", "decision", "permission", "question", "supersedes"}

// twice lists the singular headers e carries more than once with different
// values.
func twice(e *Envelope) []string {
	var out []string
	for _, k := range singular {
		var first string
		seen := false
		for _, h := range e.Headers {
			if !strings.EqualFold(h.Key, k) {
				continue
			}
			v := strings.TrimSpace(h.Value)
			if !seen {
				first, seen = v, true
			} else if !strings.EqualFold(v, first) {
				out = append(out, "`"+k+":` given twice ("+first+", "+v+"): write it once")
				break
			}
		}
	}
	return out
}

func validType(t string) bool {
	for _, v := range Types {
		if v == t {
			return true
		}
	}
	return false
}

// canonicalOrder is the header order of the delivery form; other headers
// follow in their original order, and body is always last.
var canonicalOrder = []string{"from", "to", "type", "task", "id"}

// Format renders e in the canonical multi-line form the console types into
// agents: [ROUTE], from, to, type, task, id, other headers in order, body,
// [/ROUTE]. Lines end with "\n"; there is no trailing newline after
// [/ROUTE].
func Format(e *Envelope) string {
	var b strings.Builder
	b.WriteString("[ROUTE]\n")
	for _, k := range canonicalOrder {
		if e.Has(k) {
			b.WriteString(k + ": " + e.Get(k) + "\n")
		}
	}
	for _, h := range e.Headers {
		if isCanonical(h.Key) {
			continue
		}
		b.WriteString(h.Key + ": " + h.Value + "\n")
	}
	b.WriteString("body: " + e.Body + "\n")
	b.WriteString("[/ROUTE]")
	return b.String()
}

func isCanonical(k string) bool {
	for _, c := range canonicalOrder {
		if c == k {
			return true
		}
	}
	return false
}

// Fingerprint identifies an envelope's content independently of terminal
// decoration and header order: keys, values and body with all whitespace
// collapsed. The console fingerprints what it types into an agent so that
// the echo of that text is never read back as the agent's own message.
func Fingerprint(e *Envelope) uint64 {
	headers := append([]Header(nil), e.Headers...)
	sort.Slice(headers, func(i, j int) bool { return headers[i].Key < headers[j].Key })
	h := fnv.New64a()
	for _, hd := range headers {
		h.Write([]byte(hd.Key))
		h.Write([]byte{0})
		h.Write([]byte(collapse(hd.Value)))
		h.Write([]byte{1})
	}
	h.Write([]byte(collapse(e.Body)))
	return h.Sum64()
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// GapFingerprint identifies a <gap> block by its fields, whitespace
// collapsed, so that a gap the console typed (in a primer, say) and read
// back as echo is recognised.
func GapFingerprint(g *Gap) uint64 {
	h := fnv.New64a()
	for _, f := range []string{"gap", g.Topic, g.Question, g.Context, g.Urgency} {
		h.Write([]byte(collapse(f)))
		h.Write([]byte{0})
	}
	return h.Sum64()
}
