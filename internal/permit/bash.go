package permit

import (
	"errors"
	"fmt"
	"strings"
)

// maxNested bounds how deep commands that run commands (sh -c, eval,
// find -exec, ssh) are followed.
const maxNested = 6

// maxParts bounds how many simple commands one action may hold.
const maxParts = 256

var (
	errTooDeep = errors.New("commands nested too deep to follow")
	errTooMany = errors.New("too many commands to check one by one")
)

// part is one simple command of a compound command, with where it runs.
type part struct {
	cmd  Command
	view view
	cwds cwdSet
	err  error // a nested text that could not be split
	bomb bool  // a nested text that defines a fork bomb
}

// bashCheck decides one Bash action.
type bashCheck struct {
	p   *Policy
	raw string // the request's whole text, before any trimming
	// secretDone and secretWhy cache requestSecret, a judgement of the
	// whole request
	secretDone bool
	secretWhy  string
	// hiddenDone and hiddenWhy cache rawHidden
	hiddenDone bool
	hiddenWhy  string
	agent      string
	env        Env
	parts      []part
	hasFetcher bool // some part downloads from the network
	hasNetwork bool // some part sends data over the network
	// assigns are the script's variable assignments (x=1 alone, before a
	// command, after env or export, or read from input: x=…): make takes
	// its environment as variables, so a later make sees them.
	assigns []Word
	senv    scriptEnv // what the script puts into its commands' environment
	// loops are the words each for loop's variable takes in turn.
	loops map[string][]Word
	// all are the request's commands, control lines and assignments too.
	all []Command
}

func (p *Policy) checkBash(a Action, agent string, env Env) Decision {
	_, ds := p.bashParts(a, agent, env)
	if isForkBomb(a.Arg) {
		ds = append(ds, p.decision(a.String(), nil, []hit{{id: FloorForkBomb, detail: "a function piping itself into itself"}}))
	}
	return combine(a.String(), ds)
}

// rawHidden is hiddenChar of the whole request, once per request.
func (b *bashCheck) rawHidden() (string, bool) {
	if !b.hiddenDone {
		b.hiddenDone = true
		b.hiddenWhy, _ = hiddenChar(b.raw)
	}
	return b.hiddenWhy, b.hiddenWhy != ""
}

// bashParts splits a Bash action into its parts and decides each.
func (p *Policy) bashParts(a Action, agent string, env Env) ([]part, []Decision) {
	var rec *recorder
	if env.FS != nil {
		rec = &recorder{FS: env.FS}
		env.FS = rec
	}
	b := &bashCheck{p: p, agent: agent, env: env, raw: a.Arg}
	cmds, err := SplitShell(a.Arg)
	if err != nil {
		b.parts = append(b.parts, part{cmd: Command{Text: strings.TrimSpace(a.Arg)}, err: err})
	} else {
		b.collect(cmds, newCwdSet(env, cmds), 0)
	}
	if len(b.parts) == 0 { // only assignments or control lines: match the text as a whole
		b.parts = append(b.parts, part{cmd: Command{Text: strings.TrimSpace(a.Arg)}, cwds: newCwdSet(env, nil)})
	}
	b.facts()
	ds := make([]Decision, 0, len(b.parts))
	reads := make([][]fileRead, len(b.parts))
	changed := make([]changes, len(b.parts))
	for j, pt := range b.parts {
		if rec != nil {
			rec.take()
		}
		d, written := b.decide(pt)
		ds = append(ds, d)
		changed[j] = changedBy(pt, written)
		if rec == nil {
			continue
		}
		reads[j] = rec.take()
		if hs := staleHits(j, b.parts, reads, changed, a.Arg); hs != nil {
			ds = append(ds, p.decision("Bash("+pt.cmd.Text+")", nil, hs))
		}
	}
	return b.parts, ds
}

// collect adds the parts of cmds, and of the commands they run.
func (b *bashCheck) collect(cmds []Command, cwds cwdSet, depth int) {
	for _, c := range cmds {
		b.noteAssigns(c)
		if c.Control && len(execHits(c, view{})) == 0 || len(c.Args) == 0 && len(c.Redirects) == 0 && len(execHits(c, view{})) == 0 {
			continue // runs nothing itself; its substitutions are commands of their own
		}
		if len(b.parts) >= maxParts {
			b.parts = append(b.parts, part{cmd: Command{Text: c.Text}, err: errTooMany})
			return
		}
		v := lookThrough(c)
		if v.name == "find" {
			v.nested = append(v.nested, findExec(v.args, cwds, b.env)...)
		}
		pt := part{cmd: c, view: v, cwds: cwds}
		if v.chdir {
			pt.cwds = cwdSet{env: b.env, unknown: true}
		}
		b.parts = append(b.parts, pt)
		for _, n := range v.nested {
			b.nested(n, pt.cwds, depth+1)
		}
	}
}

// noteAssigns keeps the variable assignments of c for makeEnvHits.
func (b *bashCheck) noteAssigns(c Command) {
	b.senv.note(c, lookThrough(c))
	b.assigns = append(b.assigns, c.Assigns...)
	b.all = append(b.all, c)
	if c.Control && len(c.Assigns) == 1 {
		if b.loops == nil {
			b.loops = map[string][]Word{}
		}
		n, _, _ := strings.Cut(c.Assigns[0].Value, "=")
		b.loops[n] = c.Loop
	}
	for _, a := range c.Args {
		if isAssignment(a.Raw) {
			b.assigns = append(b.assigns, a)
		}
	}
	for _, n := range assignedNames(lookThrough(c)) { // read X, printf -v X, mapfile X
		b.assigns = append(b.assigns, Word{Raw: n + "=…", Value: n + "=…", Dynamic: true})
	}
}

// nested adds the parts of a command another command runs.
func (b *bashCheck) nested(n nested, cwds cwdSet, depth int) {
	text := n.text
	if n.words != nil {
		text = joinValues(n.words)
	}
	if depth > maxNested || len(b.parts) >= maxParts {
		b.parts = append(b.parts, part{cmd: Command{Text: text}, err: errTooDeep})
		return
	}
	if n.elsewhere {
		cwds = cwdSet{env: b.env, unknown: true}
	}
	if n.words != nil {
		b.collect([]Command{{Args: n.words, Text: text, Via: "-exec"}}, cwds, depth)
		return
	}
	if isForkBomb(n.text) {
		b.parts = append(b.parts, part{cmd: Command{Text: text}, bomb: true})
	}
	cmds, err := splitShell(n.text, true)
	if err != nil {
		b.parts = append(b.parts, part{cmd: Command{Text: text}, err: err})
		return
	}
	b.collect(cmds, cwds.with(cmds), depth)
}

// facts finds what the compound command as a whole does with the network.
func (b *bashCheck) facts() {
	for _, pt := range b.parts {
		name := pt.view.name
		if fetchers[name] {
			b.hasFetcher = true
		}
		if senders[name] {
			b.hasNetwork = true
		}
		for _, w := range allWords(pt.cmd) {
			if strings.Contains(w.Value, "/dev/tcp/") || strings.Contains(w.Value, "/dev/udp/") {
				b.hasFetcher = true
			}
		}
	}
	b.hasNetwork = b.hasNetwork || b.hasFetcher
}

// allWords are the words of a command that may name files: assignments,
// arguments, redirection targets (not here-document delimiters).
func allWords(c Command) []Word {
	out := append([]Word{}, c.Assigns...)
	out = append(out, c.Args...)
	for _, r := range c.Redirects {
		if r.Op != "<<" && r.Op != "<<-" && r.Op != "<<<" {
			out = append(out, r.Target)
		}
	}
	return out
}

// decide decides one part: the deciding rule, under the floor; and the
// files it writes.
func (b *bashCheck) decide(pt part) (Decision, []string) {
	text := collapseSpaces(pt.cmd.Text)
	if pt.err == nil && len(pt.cmd.Args)+len(pt.cmd.Assigns) > 0 {
		text = matchText(pt.cmd)
	}
	text, exported := b.withEnv(pt, text)
	s := subject{tool: "Bash", hasArg: true, arg: pt.cmd.Text, text: text, env: b.env}
	inside := pt.err == nil && b.pathsInside(pt)
	e := b.p.first(s, inside, b.agent)
	if pt.err == nil {
		e = b.eachGoal(pt.cmd, s, inside, e)
	}
	var written []string
	pt.cwds.sink = &written
	d := b.p.decision("Bash("+pt.cmd.Text+")", e, b.hits(pt, 0))
	if len(exported) > 0 && d.Decide != Allow && d.Rule.Kind != ByFloor {
		d.Why += " (matched as " + text + ": the script puts " + joinRaw(exported) + " into the environment its commands run with)"
	}
	return b.asEdit(d, written), written
}

// eachGoal: a make command with several goals runs each of them, so an
// allow rule that names some goals (Bash(make test:*)) does not cover the
// others (make test deploy): unless the rule names every goal, each goal
// is decided as a command of its own (with the same options) and the
// strictest decides.
func (b *bashCheck) eachGoal(c Command, s subject, inside bool, e *Entry) *Entry {
	if e == nil || e.Decide != Allow {
		return e
	}
	words := matchWords(c)
	i := 0
	for i < len(words) && isAssignment(words[i].Raw) && i < len(c.Assigns) {
		i++
	}
	if i == len(words) || words[i].Dynamic || !isMake(cmdName(words[i])) {
		return e
	}
	goals, rest := makeGoalsFirst(words[i+1:])
	if len(goals) < 2 || e.Rule.namesAll(goals) {
		return e
	}
	rank := func(x *Entry) Decide {
		if x == nil {
			return b.p.Default
		}
		return x.Decide
	}
	worst := e
	for _, g := range goals {
		one := append(append(append([]Word{}, words[:i+1]...), g), rest...)
		s.text = joinCanon(one)
		if ge := b.p.first(s, inside, b.agent); rank(ge) > rank(worst) || ge == nil && rank(ge) == rank(worst) && worst != nil && worst.Decide != Allow {
			worst = ge
		}
	}
	return worst
}

// asEdit applies the Edit rules to the files a part writes: a write by
// any means is the Edit of that file, so an Edit rule that asks or denies
// it asks or denies the command too.
func (b *bashCheck) asEdit(d Decision, written []string) Decision {
	for _, abs := range written {
		if isSafeDevice(abs) {
			continue
		}
		s := subject{tool: "Edit", hasArg: true, arg: abs, abs: abs, env: b.env}
		e := b.p.first(s, b.env.inside(abs), b.agent)
		if e == nil || e.Decide <= d.Decide || e.Rule.Spec == "" {
			continue // no rule, a rule no stricter, or the catch-all for any file
		}
		d.Decide, d.Rule, d.Why = e.Decide, e.ref(), fmt.Sprintf("writes %s, and %s says: %s", abs, e.Rule.Text, e.Why)
		if e.risk() > d.Risk {
			d.Risk = e.risk()
		}
	}
	return d
}

// pathsInside reports whether every path a part names is inside the
// workdir, for rules with paths: workdir. Every word is looked up, a bare
// name too (cat plink, where plink links to /etc/passwd). An expansion,
// or a relative word when a cd may have left the workdir, counts as
// outside.
func (b *bashCheck) pathsInside(pt part) bool {
	if pt.view.chdir || pt.view.opaque {
		return false
	}
	if pt.view.extraArgs {
		if _, ok := b.pipedListing(pt); !ok || feedsWriter(pt.view) {
			return false // xargs appends words known only when it runs, unless a safe lister prints them to a reader
		}
	}
	relOK := pt.cwds.allInside()
	if !relOK && listsCwd(pt.view) {
		return false // cd && find: the implicit . is the home folder
	}
	follow := b.env.FS != nil && followsLinks(pt.view)
	words := allWords(pt.cmd)
	if len(pt.cmd.Args) > 0 {
		words = append([]Word{}, pt.cmd.Assigns...)
		skip := patternArgs(pt.view, pt.cmd.Args)
		for j, a := range pt.cmd.Args[1:] {
			if !skip[j+1] || a.Dynamic || a.Glob {
				words = append(words, a) // a computed program is judged as before
			}
		}
		if textOnly[cmdName(pt.cmd.Args[0])] && textOnly[pt.view.name] {
			words = append([]Word{}, pt.cmd.Assigns...) // echo "$(date)": text, not paths
			for _, a := range pt.cmd.Args[1:] {
				if a.Glob {
					words = append(words, a) // echo ../*: the shell lists that folder (red team 16b, finding 6)
				}
			}
		}
		for _, r := range pt.cmd.Redirects {
			if r.Op != "<<" && r.Op != "<<-" && r.Op != "<<<" && !(r.Op == ">&" || r.Op == "<&") {
				words = append(words, r.Target)
			}
		}
	}
	words = append(append(words, pt.view.reads...), pt.view.writes...)
	message, takesMessage := false, false
	if pt.view.name == "git" {
		switch parseGit(pt.view.args).sub {
		case "commit", "tag", "merge", "stash", "notes":
			takesMessage = true
		}
	}
	var bound []Word
	for _, w := range words {
		if lw, ok := b.loopWords(w, pt.cwds); ok && w.Dynamic {
			bound = append(bound, lw...) // for f in *.go: $f is one of the glob's matches
		} else {
			bound = append(bound, w)
		}
	}
	for _, w := range bound {
		if takesMessage && textValue(w.Value, &message) {
			continue // a commit or tag message is text, not a path: git commit -m "$(cat <<EOF ...)"
		}
		if w.Dynamic && !w.ProcSubst && !b.listedWord(w, pt.cwds) {
			return false
		}
		if w.Dynamic || w.ProcSubst {
			// $(git ls-files): names under its roots, looked at (listedWord);
			// diff <(sort a) <(sort b): a pipe, its command judged as a part
			continue
		}
		v := w.Value
		if isAssignment(w.Raw) || strings.HasPrefix(v, "-") {
			_, val, ok := strings.Cut(v, "=")
			if !ok {
				continue
			}
			w = Word{Raw: val, Value: val, Glob: w.Glob, Tilde: strings.HasPrefix(val, "~")}
			v = val
		}
		pathish := strings.ContainsRune(v, '/') || w.Tilde || v == "." || strings.HasPrefix(v, "..")
		if !pathish && !relOK {
			return false
		}
		abs, ok := pt.cwds.resolve(w)
		if !ok {
			return false
		}
		for _, a := range abs {
			if !b.env.inside(a) && (!isSafeDevice(a) || a == "/dev/zero") {
				return false // /dev/zero is harmless to write, endless to read: cp /dev/zero big fills the disk
			}
			if follow {
				if _, out := b.env.linkOutside(a, maxLinkWalk); out {
					return false // grep -R follows a link under a out of the folder
				}
			}
		}
	}
	return true
}

// cwdListers read the folder they run in when given no operand: after a
// bare cd (the home folder) or cd - (not known), cd && find listed ~/.ssh
// (red team 16b, finding 5).
var cwdListers = setOf("ls", "dir", "vdir", "du", "find", "tree", "rg", "ag", "fd", "fdfind", "exa", "eza", "lsd")

// listsCwd reports a cwdLister given options only.
func listsCwd(v view) bool {
	if !cwdListers[v.name] {
		return false
	}
	for _, a := range v.args {
		if a.Dynamic || !strings.HasPrefix(a.Value, "-") {
			return false
		}
	}
	return true
}

// textOnly are commands whose arguments are text they print, never files
// they open.
var textOnly = setOf("echo", "printf")

// textValue reports a word that is git's -m/--message option or its value;
// next carries "the value comes in the next word" between calls.
func textValue(v string, next *bool) bool {
	if *next {
		*next = false
		return true
	}
	switch {
	case v == "-m" || v == "--message":
		*next = true
		return true
	case strings.HasPrefix(v, "--message=") || strings.HasPrefix(v, "-m") && len(v) > 2 && v[2] != '-':
		return true
	}
	return false
}

// patternSwitches are grep's and rg's long options that take no value.
var patternSwitches = setOf("--recursive", "--dereference-recursive", "--ignore-case", "--line-number", "--hidden",
	"--word-regexp", "--fixed-strings", "--invert-match", "--count", "--files-with-matches", "--no-ignore",
	"--extended-regexp", "--perl-regexp", "--only-matching", "--with-filename", "--no-filename", "--quiet",
	"--silent", "--regexp-extended", "--null-data", "--smart-case", "--no-heading", "--heading", "--vimgrep")

// patternArgs returns the places in a command's words (args[0] is its
// name) that hold a sed program or a grep pattern: text, not paths, so
// sed -i '/^#/d' f and grep -rn /api/v1 src are inside the folder. Only
// when the view's arguments are the command's last words (no wrapper
// moved them), and only the first operand when no -e or -f gives the
// program; the files sed's program reads and writes are the view's own.
func patternArgs(v view, args []Word) map[int]bool {
	grep := v.name == "grep" || v.name == "egrep" || v.name == "fgrep" || v.name == "rg"
	if !grep && v.name != "sed" && v.name != "gsed" || len(v.args) == 0 || len(v.args) >= len(args) {
		return nil
	}
	off := len(args) - len(v.args)
	for i, a := range v.args {
		if args[off+i].Raw != a.Raw {
			return nil
		}
	}
	long := "--expression"
	if grep {
		long = "--regexp"
	}
	skip := map[int]bool{}
	given := false // a program or pattern given by option
	first := -1
	for i := 0; i < len(v.args); i++ {
		w := v.args[i].Value
		switch {
		case w == "--":
			if !given && i+1 < len(v.args) {
				first = i + 1
			}
			i = len(v.args)
		case w == "-e" || w == long:
			given = true
			if i+1 < len(v.args) {
				i++
				skip[off+i] = true
			}
		case strings.HasPrefix(w, long+"="):
			given = true
			skip[off+i] = true
		case w == "-f" || w == "--file" || strings.HasPrefix(w, "--file="):
			given = true
			if w == "-f" || w == "--file" {
				i++ // a file: still judged as a path
			}
		case strings.HasPrefix(w, "-") && len(w) > 1:
			if j := strings.IndexAny(w[1:], "ef"); !strings.HasPrefix(w, "--") && j >= 0 {
				given = true
				if w[1+j] == 'e' && 2+j < len(w) {
					skip[off+i] = true // -e'/x/d' glued; -nf FILE keeps its file
				}
				continue
			}
			// an option that may take the next word (grep -A 3,
			// --exclude-from FILE, rg --files DIR, sed -l 5): the first
			// operand is then not sure to be the pattern
			if first < 0 && !given && (strings.HasPrefix(w, "--") && !strings.Contains(w, "=") && !patternSwitches[w] ||
				!strings.HasPrefix(w, "--") && strings.ContainsAny(w[len(w)-1:], "ABCmMdDgtTjrEl")) {
				return nil
			}
		default:
			if first < 0 {
				first = i
			}
		}
	}
	if !given && first >= 0 {
		skip[off+first] = true
	}
	return skip
}
