package permit

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// claudeCodeAllows simulates what Claude Code's own permission rules, as
// its documentation describes them, would auto-approve given the same
// rules as teamlead's built-in policy (deny, then ask, then allow, as its
// documentation orders them; the tool-wide fallbacks aside): Bash rules match the command
// text by exact, prefix (:*) or * pattern after the documented process
// wrappers are dropped; a compound command is split on its operators and
// every part must match (read generously: substitutions are split too);
// Bash is not path-checked (Read and Edit rules "apply to Claude's built-in
// file tools, not to Bash subprocesses"); Read, Grep and Glob inside the
// working directory need no approval; Edit/Write follow Edit rules by the
// path as written; WebFetch follows domain: rules. There is no floor.
func claudeCodeAllows(p *Policy, env Env, action string) bool {
	a, err := ParseAction(action)
	if err != nil {
		return false
	}
	env = env.clean()
	env.FS = nil                        // Claude Code's documentation says nothing of resolving links
	allowRule := func(s subject) bool { // deny, then ask, then allow; specificity does not matter
		allowed := false
		for _, e := range p.Rules {
			if !e.Rule.matches(s) || e.Rule.Spec == "" && e.Decide != Allow {
				continue // a tool-wide ask (Read, WebFetch) stands for "no rule" here
			}
			if e.Decide != Allow {
				return false
			}
			allowed = true
		}
		return allowed
	}
	switch {
	case a.Tool == "Bash":
		cmds, err := SplitShell(a.Arg)
		if err != nil {
			return false
		}
		any := false
		for _, c := range cmds {
			if c.Control || len(c.Args) == 0 {
				continue
			}
			any = true
			if !allowRule(subject{tool: "Bash", hasArg: true, arg: c.Text, text: joinCanon(plainMatchWords(c)), env: env}) {
				return false
			}
		}
		return any
	case readTools[a.Tool]:
		abs, ok := env.resolvePath(strings.TrimSpace(a.Arg))
		if strings.TrimSpace(a.Arg) == "" {
			abs, ok = env.Cwd, true
		}
		return ok && env.inside(abs)
	case editTools[a.Tool]:
		abs, ok := env.resolvePath(strings.TrimSpace(a.Arg))
		return ok && env.inside(abs) && allowRule(subject{tool: a.Tool, hasArg: true, arg: a.Arg, abs: abs, env: env})
	case a.Tool == "WebFetch":
		return allowRule(subject{tool: a.Tool, hasArg: true, arg: a.Arg, host: urlHost(a.Arg), env: env})
	}
	return allowRule(subject{tool: a.Tool, hasArg: a.HasArg, arg: a.Arg, env: env})
}

// TestPolicyVsClaudeCodeTable: the table in docs/policy-vs-claude-code.md
// is what the corpus gives today (rerun with -v and paste the logged table
// when the corpus or the policy changes).
func TestPolicyVsClaudeCodeTable(t *testing.T) {
	env, repl := corpusFixture(t)
	rows := readCorpus(t, "testdata/redteam.txt", repl)
	p := builtin(t)
	type count struct{ rows, tlAllow, ccAllow, ccOnly int }
	per := map[string]*count{}
	var order []string
	for _, r := range rows {
		c := per[r.class]
		if c == nil {
			c = &count{}
			per[r.class] = c
			order = append(order, r.class)
		}
		e := rowEnv(env, r)
		tl := p.Check(r.action, "dev", e).Decide == Allow
		cc := claudeCodeAllows(p, e, r.action)
		c.rows++
		if tl {
			c.tlAllow++
		}
		if cc {
			c.ccAllow++
		}
		if cc && !tl {
			c.ccOnly++
			if os.Getenv("CC_ROWS") != "" {
				t.Logf("cc-only [%.20s] %s", r.class, r.raw)
			}
		}
	}
	var b strings.Builder
	b.WriteString("| class | rows | teamlead allows | Claude Code rules would allow | allowed by Claude Code's rules, asked by teamlead |\n|---|---:|---:|---:|---:|\n")
	total := count{}
	for _, cl := range order {
		c := per[cl]
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d |\n", cl, c.rows, c.tlAllow, c.ccAllow, c.ccOnly)
		total.rows += c.rows
		total.tlAllow += c.tlAllow
		total.ccAllow += c.ccAllow
		total.ccOnly += c.ccOnly
	}
	fmt.Fprintf(&b, "| **all** | %d | %d | %d | %d |\n", total.rows, total.tlAllow, total.ccAllow, total.ccOnly)
	table := b.String()
	t.Logf("\n%s", table)
	doc, err := os.ReadFile("../../docs/policy-vs-claude-code.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), table) {
		t.Errorf("docs/policy-vs-claude-code.md does not hold the table the corpus gives today; paste this:\n%s", table)
	}
}
