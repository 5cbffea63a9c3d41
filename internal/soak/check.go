package soak

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// Event is one line of an agent's traffic log (mockagent --traffic-log;
// the format is documented in cmd/mockagent/traffic.go).
type Event struct {
	// Op is the line's first word: start, sent, recv, ack, ackl, notice,
	// other, stopped or kill (a forced self-kill).
	Op string
	// ID is the message id (recv, ack, ackl, other).
	ID string
	// Key is the soak message's key (sent, recv).
	Key string
	// From is the sender (recv, other).
	From string
	// To are the recipients (sent: as addressed; ack: as acknowledged).
	To []string
	// Type is the envelope type (sent, recv).
	Type string
	// Task is a notice's task.
	Task string
	// Body is a notice's or another envelope's body.
	Body string
	// Pid is a start line's process id.
	Pid int
	// Line is the 1-based line number in the log.
	Line int
}

// ParseLog reads a traffic log. A line it cannot read is an error naming
// the line; a last line without its newline (the agent was killed while
// writing it) is ignored.
func ParseLog(r io.Reader) ([]Event, error) {
	br := bufio.NewReader(r)
	var out []Event
	for n := 1; ; n++ {
		line, err := br.ReadString('\n')
		if err == io.EOF {
			return out, nil // a partial last line is not an event yet
		}
		if err != nil {
			return out, err
		}
		ev, perr := parseLine(strings.TrimSuffix(line, "\n"))
		if perr != nil {
			return out, fmt.Errorf("line %d: %w", n, perr)
		}
		ev.Line = n
		out = append(out, ev)
	}
}

// parseLine reads one log line.
func parseLine(line string) (Event, error) {
	op, rest, _ := strings.Cut(line, " ")
	ev := Event{Op: op}
	f := strings.Fields(rest)
	kv := func(i int, key string) (string, error) {
		if i >= len(f) {
			return "", fmt.Errorf("%s: missing %s=", op, key)
		}
		v, ok := strings.CutPrefix(f[i], key+"=")
		if !ok || v == "" {
			return "", fmt.Errorf("%s: want %s=VALUE, got %q", op, key, f[i])
		}
		return v, nil
	}
	var err error
	switch op {
	case "start":
		var pid string
		if _, err = kv(0, "inc"); err == nil {
			if pid, err = kv(1, "pid"); err == nil {
				if ev.Pid, err = strconv.Atoi(pid); err == nil && ev.Pid <= 0 {
					err = fmt.Errorf("start: bad pid %q", pid)
				}
			}
		}
	case "stopped":
		if rest != "" {
			err = fmt.Errorf("stopped takes nothing, got %q", rest)
		}
	case "kill":
		if rest != "forced" {
			err = fmt.Errorf("want kill forced, got %q", line)
		}
	case "sent":
		if len(f) != 3 {
			return ev, fmt.Errorf("sent: want KEY to= type=, got %q", rest)
		}
		ev.Key = f[0]
		var to string
		if to, err = kv(1, "to"); err == nil {
			ev.To = strings.Split(to, ",")
			ev.Type, err = kv(2, "type")
		}
	case "recv":
		if len(f) != 4 {
			return ev, fmt.Errorf("recv: want ID from= key= type=, got %q", rest)
		}
		ev.ID = f[0]
		if ev.From, err = kv(1, "from"); err == nil {
			if ev.Key, err = kv(2, "key"); err == nil {
				ev.Type, err = kv(3, "type")
			}
		}
	case "ack":
		if len(f) != 2 {
			return ev, fmt.Errorf("ack: want ID to=, got %q", rest)
		}
		ev.ID = f[0]
		var to string
		if to, err = kv(1, "to"); err == nil {
			ev.To = strings.Split(to, ",")
		}
	case "ackl":
		if len(f) != 1 {
			return ev, fmt.Errorf("ackl: want ID, got %q", rest)
		}
		ev.ID = f[0]
	case "notice":
		task, body, ok := strings.Cut(rest, " ")
		if !ok || task == "" {
			return ev, fmt.Errorf("notice: want TASK \"BODY\", got %q", rest)
		}
		ev.Task = task
		ev.Body, err = strconv.Unquote(body)
	case "other":
		id, more, ok := strings.Cut(rest, " ")
		from, body, ok2 := strings.Cut(more, " ")
		if !ok || !ok2 || id == "" {
			return ev, fmt.Errorf("other: want ID from= \"BODY\", got %q", rest)
		}
		ev.ID = id
		if ev.From, err = kv0(from, "from"); err == nil {
			ev.Body, err = strconv.Unquote(body)
		}
	default:
		err = fmt.Errorf("unknown event %q", op)
	}
	return ev, err
}

func kv0(field, key string) (string, error) {
	v, ok := strings.CutPrefix(field, key+"=")
	if !ok || v == "" {
		return "", fmt.Errorf("want %s=VALUE, got %q", key, field)
	}
	return v, nil
}

// The invariants the soak checks.
const (
	// AckedLost: a sender was told "relayed m-N to X" and X never read m-N.
	AckedLost = "acked-lost"
	// Duplicate: an agent process read more than one extra copy of a
	// message or acknowledgement (one per crash that hit the agent: each
	// crash starts a new process), or its first process read any.
	Duplicate = "duplicate"
	// Refusal: an agent got a notice other than an acknowledgement for
	// well-formed traffic (a spoofed-sender refusal, a reformat request, a
	// "not delivered"), or the store holds refusal or reformat records.
	Refusal = "refusal"
	// NoticeOfNotice: a notice caused by text the console itself typed (a
	// refusal of a block that says from: team-lead, or that quotes a
	// notice).
	NoticeOfNotice = "notice-of-notice"
	// Stray: an agent read a relayed message no agent sent to it (an echo
	// relayed as a message, say).
	Stray = "stray"
	// Memory: the console's anonymous memory (RssAnon) grew more than allowed after warm-up.
	Memory = "memory"
)

// Invariants lists the invariants in report order.
var Invariants = []string{AckedLost, Duplicate, Refusal, NoticeOfNotice, Stray, Memory}

// Violation is one broken invariant, with what identifies it.
type Violation struct {
	// Invariant is one of Invariants.
	Invariant string
	// MsgID, Sender and Recipient identify the message, where known.
	MsgID, Sender, Recipient string
	// Detail says what was seen.
	Detail string
}

func (v Violation) String() string {
	var b strings.Builder
	b.WriteString(v.Invariant + ":")
	if v.MsgID != "" {
		b.WriteString(" " + v.MsgID)
	}
	if v.Sender != "" {
		b.WriteString(" from " + v.Sender)
	}
	if v.Recipient != "" {
		b.WriteString(" to " + v.Recipient)
	}
	if v.Detail != "" {
		b.WriteString(": " + v.Detail)
	}
	return b.String()
}

// Tally is what the logs add up to.
type Tally struct {
	// Sent counts messages the agents printed; Received the relayed soak
	// messages they read (copies included); Acked the (id, recipient)
	// pairs acknowledged as relayed; AckedReceived those the recipient read.
	Sent, Received, Acked, AckedReceived int
	// LeadAcks counts "received m-N" acknowledgements of messages to team-lead.
	LeadAcks int
	// Notices counts notices other than acknowledgements.
	Notices int
	// ExtraCopies counts copies read beyond the first, messages and
	// acknowledgements together.
	ExtraCopies int
	// Unread counts keys sent that no agent read: messages to team-lead,
	// and messages lost before the console took them (printed just before
	// it was killed, say; their senders got no acknowledgement): not an
	// invariant, reported for information.
	Unread int
	// Starts counts agent processes started.
	Starts int
	// ForcedKills counts kills that could not wait for the agent's read to
	// be logged (a message read then may look lost).
	ForcedKills int
}

// Crashes says how many crashes hit each agent: console kills plus kills
// of the agent itself (for the report: the duplicate rule counts the
// agent's processes in its log).
type Crashes struct {
	Console int
	Agent   map[string]int
}

func (c Crashes) of(agent string) int { return c.Console + c.Agent[agent] }

// Check applies the invariants to the agents' logs (by agent name).
// pending, if not nil, is asked whether an acknowledged message that was
// not received yet may still arrive (the continuous check's grace); the
// final check passes nil.
func Check(logs map[string][]Event, crashes Crashes, pending func(id, recipient string) bool) (Tally, []Violation) {
	var t Tally
	var vs []Violation
	names := make([]string, 0, len(logs))
	for n := range logs {
		names = append(names, n)
	}
	sort.Strings(names)

	type pair struct{ id, to string }
	received := map[pair]int{}   // (id, recipient) -> copies
	keyTo := map[string]string{} // key -> id it was received under (first)
	sentKeys := map[string]Event{}
	keySender := map[string]string{}
	for _, n := range names {
		for _, ev := range logs[n] {
			switch ev.Op {
			case "sent":
				t.Sent++
				sentKeys[ev.Key] = ev
				keySender[ev.Key] = n
			case "start":
				t.Starts++
			case "kill":
				t.ForcedKills++
			}
		}
	}
	ackOf := map[string][]string{} // id -> recipients acked
	ackSender := map[string]string{}
	for _, n := range names {
		acks := map[string]int{}
		for _, ev := range logs[n] {
			switch ev.Op {
			case "recv":
				t.Received++
				received[pair{ev.ID, n}]++
				if _, ok := keyTo[ev.Key]; !ok {
					keyTo[ev.Key] = ev.ID
				}
				s, ok := sentKeys[ev.Key]
				switch {
				case !ok && pending != nil:
					// Its sender's log may have been read before the
					// line was written: the final check decides.
				case !ok:
					vs = append(vs, Violation{Invariant: Stray, MsgID: ev.ID, Sender: ev.From, Recipient: n,
						Detail: fmt.Sprintf("%s read soak message %s, which no agent logged as sent (%s.log line %d)", n, ev.Key, n, ev.Line)})
				case keySender[ev.Key] != ev.From:
					vs = append(vs, Violation{Invariant: Stray, MsgID: ev.ID, Sender: ev.From, Recipient: n,
						Detail: fmt.Sprintf("%s read %s as from %s, but %s sent it (%s.log line %d)", n, ev.Key, ev.From, keySender[ev.Key], n, ev.Line)})
				case !addressed(s.To, n):
					vs = append(vs, Violation{Invariant: Stray, MsgID: ev.ID, Sender: ev.From, Recipient: n,
						Detail: fmt.Sprintf("%s read %s, sent to %s (%s.log line %d)", n, ev.Key, strings.Join(s.To, ","), n, ev.Line)})
				}
			case "ack":
				acks[ev.ID]++
				if acks[ev.ID] == 1 {
					ackOf[ev.ID] = ev.To
					ackSender[ev.ID] = n
				}
			case "ackl":
				t.LeadAcks++
				acks[ev.ID]++
			case "notice":
				t.Notices++
				inv := Refusal
				if causedByNotice(ev.Body) {
					inv = NoticeOfNotice
				}
				vs = append(vs, Violation{Invariant: inv, Recipient: n,
					Detail: fmt.Sprintf("%s got a notice (task %s, %s.log line %d): %s", n, ev.Task, n, ev.Line, clip(ev.Body, 300))})
			case "other":
				vs = append(vs, Violation{Invariant: Stray, MsgID: ev.ID, Sender: ev.From, Recipient: n,
					Detail: fmt.Sprintf("%s read a relayed message that is not soak traffic (%s.log line %d): %s", n, n, ev.Line, clip(ev.Body, 300))})
			}
		}
	}
	// Copies per recipient, messages and acknowledgements together, by
	// the agent process that read them: every crash that hits an agent (a
	// console kill, which takes its agents down, or a kill of the agent)
	// starts a new process, which may read once more the one delivery
	// that was in flight; so each process after the first may read one
	// extra copy, and the first none.
	for _, n := range names {
		seen := map[string]bool{}
		proc, extra := 0, 0
		var copies []string
		flush := func() {
			if extra > 0 && (proc <= 1 || extra > 1) {
				allowed := 1
				if proc <= 1 {
					allowed = 0
				}
				hit := ""
				if crashes.Console > 0 || len(crashes.Agent) > 0 {
					hit = fmt.Sprintf(" (%d crashes hit %s in all: %d console kills, %d kills of %s)", crashes.of(n), n, crashes.Console, crashes.Agent[n], n)
				}
				vs = append(vs, Violation{Invariant: Duplicate, Recipient: n,
					Detail: fmt.Sprintf("%s's process %d (%s.log after start line %d) read %d extra copies, %d allowed%s: %s",
						n, proc, n, proc, extra, allowed, hit, clip(strings.Join(copies, ", "), 400))})
			}
			extra, copies = 0, nil
		}
		for _, ev := range logs[n] {
			key := ""
			switch ev.Op {
			case "start":
				flush()
				proc++
			case "recv":
				key = ev.ID
			case "ack", "ackl":
				key = "ack of " + ev.ID
			}
			if key == "" || ev.ID == "-" {
				continue
			}
			if seen[key] {
				extra++
				t.ExtraCopies++
				copies = append(copies, fmt.Sprintf("%s again at line %d", key, ev.Line))
			}
			seen[key] = true
		}
		flush()
	}
	// Acknowledged means delivered.
	ids := make([]string, 0, len(ackOf))
	for id := range ackOf {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return idLess(ids[i], ids[j]) })
	for _, id := range ids {
		for _, to := range ackOf[id] {
			t.Acked++
			if received[pair{id, to}] > 0 {
				t.AckedReceived++
				continue
			}
			if pending != nil && pending(id, to) {
				continue
			}
			vs = append(vs, Violation{Invariant: AckedLost, MsgID: id, Sender: ackSender[id], Recipient: to,
				Detail: fmt.Sprintf("%s was told \"relayed %s to %s\", and %s never read %s", ackSender[id], id, strings.Join(ackOf[id], ", "), to, id)})
		}
	}
	for key := range sentKeys {
		if _, ok := keyTo[key]; !ok {
			t.Unread++
		}
	}
	return t, vs
}

// addressed says whether a message addressed to "to" may reach agent n:
// n is named, or the message went to a role (which the checker does not
// resolve).
func addressed(to []string, n string) bool {
	for _, a := range to {
		if a == n || strings.HasPrefix(a, "role:") {
			return true
		}
	}
	return false
}

// causedByNotice says whether a notice's body is about a block the console
// itself typed: the block claimed to be from team-lead, or quoted a notice.
func causedByNotice(body string) bool {
	return strings.Contains(body, "from: team-lead") || strings.Contains(body, "relayed m-") ||
		strings.Contains(body, "your [ROUTE] block was not accepted: reformat")
}

// idLess orders m-9 before m-10.
func idLess(a, b string) bool {
	na, ea := strconv.Atoi(strings.TrimPrefix(a, "m-"))
	nb, eb := strconv.Atoi(strings.TrimPrefix(b, "m-"))
	if ea == nil && eb == nil {
		return na < nb
	}
	return a < b
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Count tallies violations per invariant.
func Count(vs []Violation) map[string]int {
	out := map[string]int{}
	for _, v := range vs {
		out[v.Invariant]++
	}
	return out
}
