// Package detect reads an agent CLI's state off its screen: whether it
// shows its permission dialog (and then which tool it asks for, the
// action, and the keys that approve or deny it), works on a reply, or
// waits for the user's next message.
//
// Detectors are data: each preset of configs/presets.yaml has a
// `permission:` and a `state:` section (PermissionSpec, StateSpec) that
// Compile turns into a Detector, so a person can fix one when a CLI
// changes its screens, without rebuilding. Each detector is tested
// against screens captured from the real CLIs (testdata/, README.md
// there). Where a CLI has hooks (Claude Code's PreToolUse and
// PermissionRequest), they are the better path; the screen is the
// fallback that works for every CLI.
//
// A detector that matches nothing while the screen plainly shows a
// question (LooksLikeDialog) is reported by Diagnose, so the console can
// say so instead of ignoring the dialog.
package detect

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// Kinds of Match: a permission dialog, or the CLI's state.
const (
	// KindPermission is a permission dialog the detector read.
	KindPermission = "permission"
	// KindWaiting is another question waiting for the human.
	KindWaiting = "waiting"
	// KindBusy is the CLI working on a reply.
	KindBusy = "busy"
	// KindIdle is the CLI waiting for the next message.
	KindIdle = "idle"
	// KindUnknown is a screen none of the detector's patterns matched.
	KindUnknown = "unknown"
)

var (
	// ErrInvalid wraps every error of a detector's configuration.
	ErrInvalid = errors.New("invalid detector")
	// ErrUnmatchedDialog is a screen that looks like a dialog that the
	// preset's permission detector did not match.
	ErrUnmatchedDialog = errors.New("permission detector matched nothing on a screen that looks like a dialog")
)

// Match is what a detector read off a screen.
type Match struct {
	// Kind is KindPermission, or the CLI's state (KindWaiting, KindBusy,
	// KindIdle, KindUnknown).
	Kind string
	// Tool is the tool the dialog asks for (Bash, Write, …), empty when
	// the dialog's title named none the detector knows.
	Tool string
	// Action is what the dialog asks to do (the command, the file), its
	// wrapped rows joined back.
	Action string
	// Approve, ApproveAlways and Deny are the keys that answer the
	// dialog; ApproveAlways is nil when the dialog does not offer it.
	Approve, ApproveAlways, Deny []byte
	// Settle is how long to wait after the dialog appeared before pressing
	// one of them (PermissionSpec.Settle).
	Settle time.Duration
	// Rows are the screen rows the dialog spans, from its top (or the
	// first row read) to the last row read: the matched rows, the title,
	// the action, the options.
	Rows []int
}

// Detector reads one CLI's screens. It is safe for concurrent use.
type Detector struct {
	name  string
	perm  *permission
	state *stateSet
}

type permission struct {
	match                 []*regexp.Regexp
	within                int
	top                   *regexp.Regexp
	tools                 []tool
	action                *action
	options               *regexp.Regexp
	approve, always, deny key
	settle                time.Duration
}

type tool struct {
	name   string
	title  *regexp.Regexp
	action *action
}

type action struct {
	margin  int // -1: the default
	between [2]*regexp.Regexp
	above   *regexp.Regexp
	pattern *regexp.Regexp
	strip   *regexp.Regexp
}

type key struct {
	bytes  []byte
	option *regexp.Regexp
}

type stateSet struct {
	busy, idle, waiting []*regexp.Regexp
}

// Compile builds the detector of the preset called name (used in errors
// and reports) from its sections; either may be nil. Errors wrap
// ErrInvalid and name the field.
func Compile(name string, perm *PermissionSpec, state *StateSpec) (*Detector, error) {
	d := &Detector{name: name}
	c := compiler{name: name}
	if perm != nil && !isEmpty(perm) {
		d.perm = c.permission(perm)
	}
	if state != nil {
		d.state = &stateSet{
			busy:    c.list("state.busy", state.Busy),
			idle:    c.list("state.idle", state.Idle),
			waiting: c.list("state.waiting", state.Waiting),
		}
	}
	if c.err != nil {
		return nil, c.err
	}
	return d, nil
}

func isEmpty(p *PermissionSpec) bool {
	return len(p.Match) == 0 && p.Top == "" && len(p.Tools) == 0 && p.Action == nil && p.Options == "" &&
		p.Approve.IsZero() && p.ApproveAlways.IsZero() && p.Deny.IsZero()
}

// compiler keeps the first error.
type compiler struct {
	name string
	err  error
}

func (c *compiler) fail(field, msg string) {
	if c.err == nil {
		c.err = fmt.Errorf("%w: preset %s: %s: %s", ErrInvalid, c.name, field, msg)
	}
}

func (c *compiler) re(field, pat string, groups ...string) *regexp.Regexp {
	if pat == "" {
		return nil
	}
	re, err := regexp.Compile(pat)
	if err != nil {
		c.fail(field, fmt.Sprintf("%q is not a regular expression: %v", pat, err))
		return nil
	}
	for _, g := range groups {
		if re.SubexpIndex(g) < 0 {
			c.fail(field, fmt.Sprintf("%q has no named group (?P<%s>…)", pat, g))
			return nil
		}
	}
	return re
}

func (c *compiler) list(field string, pats []string) []*regexp.Regexp {
	var out []*regexp.Regexp
	for i, p := range pats {
		if p == "" {
			c.fail(fmt.Sprintf("%s[%d]", field, i), "empty pattern")
			continue
		}
		if re := c.re(fmt.Sprintf("%s[%d]", field, i), p); re != nil {
			out = append(out, re)
		}
	}
	return out
}

func (c *compiler) permission(p *PermissionSpec) *permission {
	out := &permission{
		match:  c.list("permission.match", p.Match),
		within: p.Within,
		top:    c.re("permission.top", p.Top),
		settle: p.Settle,
	}
	if p.Settle < 0 {
		c.fail("permission.settle", "must not be negative")
	}
	if len(p.Match) == 0 {
		c.fail("permission.match", "needs at least one pattern: the text that marks the dialog")
	}
	if p.Within < 0 {
		c.fail("permission.within", "must not be negative")
	}
	for i, t := range p.Tools {
		field := fmt.Sprintf("permission.tools[%d]", i)
		if t.Title == "" {
			c.fail(field+".title", "missing: the regex of the row that names the tool")
		}
		var groups []string
		if t.Name == "" {
			groups = []string{"tool"}
		}
		out.tools = append(out.tools, tool{name: t.Name, title: c.re(field+".title", t.Title, groups...), action: c.action(field+".action", t.Action)})
	}
	out.action = c.action("permission.action", p.Action)
	out.options = c.re("permission.options", p.Options, "key", "label")
	out.approve = c.key("permission.approve", p.Approve, p.Options)
	out.always = c.key("permission.approve_always", p.ApproveAlways, p.Options)
	out.deny = c.key("permission.deny", p.Deny, p.Options)
	if p.Approve.IsZero() {
		c.fail("permission.approve", "missing: the key that approves once")
	}
	if p.Deny.IsZero() {
		c.fail("permission.deny", "missing: the key that denies")
	}
	return out
}

func (c *compiler) action(field string, a *ActionSpec) *action {
	if a == nil {
		return nil
	}
	out := &action{strip: c.re(field+".strip", a.Strip), margin: -1}
	if a.Margin != nil {
		if *a.Margin < 0 {
			c.fail(field+".margin", "must not be negative")
		}
		out.margin = *a.Margin
	}
	given := 0
	for _, set := range []bool{len(a.Between) > 0, a.Above != "", a.Pattern != ""} {
		if set {
			given++
		}
	}
	switch {
	case given > 1:
		c.fail(field, "give one of between, above and pattern")
	case len(a.Between) > 0:
		if len(a.Between) != 2 || a.Between[0] == "" || a.Between[1] == "" {
			c.fail(field+".between", "needs two patterns: the row above the action and the row below it")
			return out
		}
		out.between = [2]*regexp.Regexp{c.re(field+".between[0]", a.Between[0]), c.re(field+".between[1]", a.Between[1])}
	case a.Above != "":
		out.above = c.re(field+".above", a.Above)
	case a.Pattern != "":
		out.pattern = c.re(field+".pattern", a.Pattern, "action")
	default:
		c.fail(field, "give between (two patterns), above (one) or pattern (with a group named action)")
	}
	return out
}

func (c *compiler) key(field string, k KeySpec, options string) key {
	out := key{bytes: []byte(k.Key)}
	if k.Option != "" {
		if options == "" {
			c.fail(field+".option", "needs permission.options: the regex of an option row")
		}
		out.option = c.re(field+".option", k.Option)
	}
	return out
}

// Name is the preset the detector belongs to.
func (d *Detector) Name() string { return d.name }

// HasPermission reports whether the detector reads permission dialogs.
func (d *Detector) HasPermission() bool { return d.perm != nil }

// Check reads a screen (its rows, top first, as Rows or SplitScreen give
// them): a permission dialog (ok) or the CLI's state. The terminal's
// width, which tells wrapped rows from lines that ended, is taken from
// the widest row (CLIs draw rules and boxes across the whole width).
func (d *Detector) Check(screen []string) (m Match, ok bool) {
	rows, _ := rowsOf(screen)
	if d.perm != nil {
		if m, ok := d.perm.check(rows); ok {
			return m, true
		}
	}
	return Match{Kind: d.stateOf(rows)}, false
}

// State is the CLI's state on this screen: KindPermission, KindWaiting,
// KindBusy, KindIdle or KindUnknown.
func (d *Detector) State(screen []string) string {
	m, _ := d.Check(screen)
	return m.Kind
}

func (d *Detector) stateOf(rows []row) string {
	if d.state == nil {
		return KindUnknown
	}
	for _, k := range []struct {
		kind string
		res  []*regexp.Regexp
	}{{KindWaiting, d.state.waiting}, {KindBusy, d.state.busy}, {KindIdle, d.state.idle}} {
		for _, r := range rows {
			if anyMatch(k.res, r.text) {
				return k.kind
			}
		}
	}
	return KindUnknown
}

func anyMatch(res []*regexp.Regexp, s string) bool {
	for _, re := range res {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}

// Diagnose reports a screen that looks like a dialog (LooksLikeDialog)
// on which the detector finds no permission dialog: the preset's
// detector needs fixing (or the CLI asks something else of the human).
// It returns nil otherwise. The error wraps ErrUnmatchedDialog.
func (d *Detector) Diagnose(screen []string) error {
	if !LooksLikeDialog(screen) {
		return nil
	}
	if d.perm == nil {
		return fmt.Errorf("%w: preset %s has no permission detector: add a permission section to it in presets.yaml", ErrUnmatchedDialog, d.name)
	}
	if _, ok := d.Check(screen); ok {
		return nil
	}
	return fmt.Errorf("%s's %w — fix its permission section in presets.yaml", d.name, ErrUnmatchedDialog)
}

// check finds the latest dialog on the screen.
func (p *permission) check(rows []row) (Match, bool) {
	for start := len(rows) - 1; start >= 0; start-- {
		if !p.match[0].MatchString(rows[start].text) {
			continue
		}
		matched, ok := p.rest(rows, start)
		if !ok {
			continue
		}
		if p.within > 0 && !inLast(rows, matched[len(matched)-1], p.within) {
			continue
		}
		return p.read(rows, matched), true
	}
	return Match{}, false
}

// rest matches the patterns after the first, in order, from row start.
func (p *permission) rest(rows []row, start int) ([]int, bool) {
	matched := []int{start}
	at := start
	for _, re := range p.match[1:] {
		found := -1
		for i := at; i < len(rows); i++ {
			if re.MatchString(rows[i].text) {
				found = i
				break
			}
		}
		if found < 0 {
			return nil, false
		}
		matched = append(matched, found)
		at = found
	}
	return matched, true
}

// inLast reports whether row i is among the last n non-blank rows.
func inLast(rows []row, i, n int) bool {
	for j := len(rows) - 1; j > i; j-- {
		if strings.TrimSpace(rows[j].text) != "" {
			n--
		}
	}
	return n > 0
}

// read reads the dialog found at the matched rows.
func (p *permission) read(rows []row, matched []int) Match {
	m := Match{Kind: KindPermission, Settle: p.settle}
	anchor := matched[0]
	top := 0
	if p.top != nil {
		for i := anchor; i >= 0; i-- {
			if p.top.MatchString(rows[i].text) {
				top = i
				break
			}
		}
	}
	used := append([]int(nil), matched...)
	act := p.action
	title := -1
	for _, t := range p.tools {
		i := lastRow(rows, t.title, top, anchor)
		if i < 0 {
			continue
		}
		m.Tool = t.name
		if m.Tool == "" {
			m.Tool = strings.TrimSpace(t.title.FindStringSubmatch(rows[i].text)[t.title.SubexpIndex("tool")])
		}
		if t.action != nil {
			act = t.action
		}
		title = i
		used = append(used, i)
		break
	}
	if act != nil {
		text, at := act.read(rows, top, title, anchor)
		m.Action = text
		used = append(used, at...)
	}
	var opts []option
	if p.options != nil {
		opts = p.optionRows(rows, anchor)
		for _, o := range opts {
			used = append(used, o.row)
		}
	}
	m.Approve = p.approve.resolve(opts)
	m.ApproveAlways = p.always.resolve(opts)
	m.Deny = p.deny.resolve(opts)
	first, last := slices.Min(used), slices.Max(used)
	if p.top != nil && p.top.MatchString(rows[top].text) {
		first = min(first, top)
	}
	for i := first; i <= last; i++ {
		m.Rows = append(m.Rows, i)
	}
	return m
}

// firstRow is the first row in [from, to] that re matches, or -1.
func firstRow(rows []row, re *regexp.Regexp, from, to int) int {
	for i := from; i <= to && i < len(rows); i++ {
		if re.MatchString(rows[i].text) {
			return i
		}
	}
	return -1
}

// lastRow is the last row in [from, to] that re matches, or -1.
func lastRow(rows []row, re *regexp.Regexp, from, to int) int {
	for i := min(to, len(rows)-1); i >= from; i-- {
		if re.MatchString(rows[i].text) {
			return i
		}
	}
	return -1
}

// read extracts the action, and the rows it was read from, given the
// dialog's top row, its title row (-1 when unknown) and its first matched
// row: below the title (or the top) for between and pattern, above the
// title (or the matched row) for above.
func (a *action) read(rows []row, top, title, anchor int) (string, []int) {
	var picked []row
	var at []int
	from := top
	if title >= 0 {
		from = title
	}
	switch {
	case a.above != nil:
		ref := anchor
		if title >= 0 {
			ref = title
		}
		start := lastRow(rows, a.above, 0, ref-1)
		if start < 0 {
			return "", nil
		}
		for i := start + 1; i < ref; i++ {
			picked = append(picked, rows[i])
			at = append(at, i)
		}
	case a.between[0] != nil:
		start := firstRow(rows, a.between[0], from, len(rows)-1)
		if start < 0 {
			return "", nil
		}
		end := firstRow(rows, a.between[1], start+1, len(rows)-1)
		if end < 0 {
			return "", nil
		}
		for i := start + 1; i < end; i++ {
			picked = append(picked, rows[i])
			at = append(at, i)
		}
	case a.pattern != nil:
		// The rows from `from` joined with newlines; the group's span
		// mapped back onto the rows it covers.
		var b strings.Builder
		offs := make([]int, 0, len(rows)-from)
		for i := from; i < len(rows); i++ {
			offs = append(offs, b.Len())
			b.WriteString(rows[i].text)
			b.WriteByte('\n')
		}
		text := b.String()
		loc := a.pattern.FindStringSubmatchIndex(text)
		g := a.pattern.SubexpIndex("action")
		if loc == nil || loc[2*g] < 0 {
			return "", nil
		}
		lo, hi := loc[2*g], loc[2*g+1]
		for k, off := range offs {
			r := rows[from+k]
			endOff := off + len(r.text)
			if hi <= off || lo > endOff {
				continue
			}
			part := r
			part.text = r.text[max(lo, off)-off : min(hi, endOff)-off]
			part.left += ansi.StringWidth(r.text[:max(lo, off)-off])
			picked = append(picked, part)
			at = append(at, from+k)
		}
	}
	if a.strip != nil {
		for i := range picked {
			if loc := a.strip.FindStringIndex(picked[i].text); loc != nil && loc[0] == 0 {
				picked[i].left += ansi.StringWidth(picked[i].text[:loc[1]])
				picked[i].text = picked[i].text[loc[1]:]
			}
		}
	}
	return join(picked, a.margin), at
}

// option is one option row of a dialog.
type option struct {
	key, label string
	row        int
}

// optionRows reads the option rows below the anchor. An option whose
// label wraps continues on the rows below it that are indented further
// and do not start an option themselves.
func (p *permission) optionRows(rows []row, anchor int) []option {
	var out []option
	k, l := p.options.SubexpIndex("key"), p.options.SubexpIndex("label")
	for i := anchor; i < len(rows); i++ {
		block := rows[i].text
		j := i + 1
		for ; j < len(rows) && strings.TrimSpace(rows[j].text) != "" && rows[j].left+indent(rows[j].text) > rows[i].left+indent(rows[i].text) &&
			!p.options.MatchString(rows[j].text); j++ {
			block += " " + strings.TrimSpace(rows[j].text)
		}
		sm := p.options.FindStringSubmatch(block)
		if sm == nil {
			sm = p.options.FindStringSubmatch(rows[i].text)
			j = i + 1
		}
		if sm != nil {
			out = append(out, option{key: sm[k], label: strings.TrimSpace(sm[l]), row: i})
			i = j - 1
		}
	}
	return out
}

// resolve is the key's bytes for a dialog with these options: the key of
// the option whose label matches, else the literal key (nil when empty).
func (k key) resolve(opts []option) []byte {
	if k.option != nil {
		for _, o := range opts {
			if k.option.MatchString(o.label) {
				return []byte(o.key)
			}
		}
	}
	if len(k.bytes) == 0 {
		return nil
	}
	return slices.Clone(k.bytes)
}
