package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/teamlead/teamlead/agents"
	"github.com/teamlead/teamlead/internal/control"
	"github.com/teamlead/teamlead/internal/permit"
	"github.com/teamlead/teamlead/internal/report"
)

// The exit status of teamlead permissions check.
const (
	exitAllow = 0
	exitAsk   = 2
	exitDeny  = 3
)

// permFlags are the flags the permissions commands share.
type permFlags struct {
	agent   string
	policy  string
	workdir string
}

func newPermissionsCmd(g *globals) *cobra.Command { return permissionsCmd(g, os.Exit) }

// permissionsCmd builds the command; exit ends the process with check's status (a test passes its own).
func permissionsCmd(g *globals, exit func(int)) *cobra.Command {
	f := &permFlags{}
	cmd := &cobra.Command{
		Use:   "permissions",
		Short: "Check an action against the permission policy, list its rules, add an always-allow",
		Long: `The permission policy decides what an agent may do unasked (allow), what waits for the human
(ask) and what is refused (deny): rules in Claude Code's syntax, the agent's own first; a matching deny
beats an ask, an ask beats an allow unless the allow refines it (Bash(git checkout -b:*) of
Bash(git checkout:*)), so rule order opens no hole; all over a built-in floor no rule can approve. Shell commands are parsed with bash's grammar; symbolic links, .., ~ and
globs are resolved on the real file system before any path rule. --policy names the policy file;
without it the built-in configs/permissions.yaml is used.`,
	}
	cmd.PersistentFlags().StringVar(&f.agent, "agent", "", "the agent: its own rules apply first, and its dir (from --config) is the working directory")
	cmd.PersistentFlags().StringVar(&f.policy, "policy", "", "policy file (default: the built-in configs/permissions.yaml)")
	cmd.PersistentFlags().StringVar(&f.workdir, "workdir", "", "the agent's working directory (default: the agent's dir in --config, else the current directory)")
	cmd.AddCommand(permCheckCmd(g, f, exit), permListCmd(g, f), permAllowCmd(g, f))
	return cmd
}

func permCheckCmd(g *globals, f *permFlags, exit func(int)) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   `check "ACTION"`,
		Short: "Say whether an action is allowed, asked or denied, which rule decides and why",
		Long: `Check an action written as Tool or Tool(argument), e.g.
  teamlead permissions check "Bash(go test ./... && git push --force)" --agent dev
  teamlead permissions check "Edit(src/main.go)" --workdir ~/src/app
  teamlead permissions check "WebFetch(https://docs.python.org/3/)"
It prints the decision, the rule that decided (file:line, a floor id, or the default), the risk and
the reason, and each part of a compound shell command.

Exit status: 0 allow, 2 ask, 3 deny; 1 when the action, the policy or a flag is wrong.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := permit.ParseAction(args[0]); err != nil {
				return err
			}
			p, err := f.load(g)
			if err != nil {
				return err
			}
			env, err := f.env(g)
			if err != nil {
				return err
			}
			d := p.Check(args[0], f.agent, env)
			switch format {
			case "text":
				printDecision(cmd.OutOrStdout(), d, f.agent, env)
			case "json":
				if err := json.NewEncoder(cmd.OutOrStdout()).Encode(decisionJSON(d)); err != nil {
					return err
				}
			default:
				return fmt.Errorf("--format %q: use text or json", format)
			}
			switch d.Decide {
			case permit.Ask:
				exit(exitAsk)
			case permit.Deny:
				exit(exitDeny)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "text or json")
	return cmd
}

func permListCmd(g *globals, f *permFlags) *cobra.Command {
	var format *formatFlag
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the rules in the order they are checked for an agent, the default, and the floor",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := format.check(); err != nil {
				return err
			}
			p, err := f.load(g)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			return printList(w, format, ruleRows(p, f.agent), nil, func() error {
				printRules(w, p, f.agent)
				return nil
			})
		},
	}
	format = addFormat(cmd)
	return cmd
}

// ruleJSON is one line of `teamlead permissions list --format json`: a
// rule (in the order they are checked), the default, or a floor entry.
type ruleJSON struct {
	Kind        string `json:"kind"` // rule, default or floor
	Order       int    `json:"order,omitempty"`
	Decide      string `json:"decide,omitempty"`
	Rule        string `json:"rule,omitempty"`
	ID          string `json:"id,omitempty"` // a floor entry's
	Risk        string `json:"risk,omitempty"`
	WorkdirOnly bool   `json:"workdir_only,omitempty"`
	Agent       string `json:"agent,omitempty"`
	File        string `json:"file,omitempty"`
	Line        int    `json:"line,omitempty"`
	Why         string `json:"why,omitempty"`
}

func ruleRows(p *permit.Policy, agent string) []ruleJSON {
	var out []ruleJSON
	for i, e := range p.Effective(agent) {
		r := ruleJSON{Kind: "rule", Order: i + 1, Decide: e.Decide.String(), Rule: e.Rule.Text, WorkdirOnly: e.Paths == permit.PathsWorkdir,
			Agent: e.Agent, File: e.File, Line: e.Line, Why: e.Why}
		if e.Risk != 0 {
			r.Risk = e.Risk.String()
		}
		out = append(out, r)
	}
	out = append(out, ruleJSON{Kind: "default", Decide: p.Default.String(), File: p.File, Line: p.DefaultLine})
	for _, e := range permit.Floor() {
		out = append(out, ruleJSON{Kind: "floor", ID: e.ID, Risk: e.Risk.String(), Why: e.Reason})
	}
	return out
}

func permAllowCmd(g *globals, f *permFlags) *cobra.Command {
	var scope, why string
	var everyAgent, dryRun bool
	cmd := &cobra.Command{
		Use:   `allow "ACTION" --policy FILE`,
		Short: "Always allow an action from now on: add the rule for it to the policy file",
		Long: `Add the rule that lets an action run unasked from now on, at the chosen scope:
  exact   this action           Bash(npm run build -- --prod)
  prefix  the command's prefix  Bash(npm run build:*); a file's directory; a URL's domain
  dir     a file's directory    Edit(/src/pkg/**); a URL's domain
  tool    every use of the tool Bash
The rule goes to the agent's own rules with --agent (to every agent's with --every-agent), where it
decides the action; the file keeps its comments. An action on the destructive floor cannot be
always allowed.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.policy == "" {
				return fmt.Errorf("pass --policy FILE: the built-in policy cannot be changed; copy configs/permissions.yaml and point --policy at the copy")
			}
			sc, err := permit.ParseScope(scope)
			if err != nil {
				return err
			}
			p, err := f.load(g)
			if err != nil {
				return err
			}
			env, err := f.env(g)
			if err != nil {
				return err
			}
			plan, err := permit.PlanAlways(p, args[0], f.agent, sc, env)
			if err != nil {
				return err
			}
			rules, out := plan.Rules, cmd.OutOrStdout()
			if len(rules) == 0 {
				fmt.Fprintf(out, "%s: nothing to add: %s\n", args[0], plan.Why)
				return nil
			}
			target := f.agent
			if everyAgent {
				target = ""
			}
			if why == "" {
				why = "always allowed by the human (" + sc.String() + " of " + args[0] + ")"
			}
			for _, r := range rules {
				where := "rules"
				if target != "" {
					where = "agents." + target
				}
				if dryRun {
					fmt.Fprintf(out, "would add %s to %s\n", r, where)
					continue
				}
				add := permit.Addition{Agent: target, Match: r, Why: why, Action: args[0], ActionAgent: f.agent}
				if err := permit.AddRule(f.policy, add, env); err != nil {
					return err
				}
				fmt.Fprintf(out, "added %s to %s in %s\n", r, where, f.policy)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&scope, "scope", "exact", "exact, prefix, dir or tool")
	cmd.Flags().StringVar(&why, "why", "", "the reason shown when the rule decides")
	cmd.Flags().BoolVar(&everyAgent, "every-agent", false, "add the rule for every agent, not only --agent's")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "print the rules without writing them")
	return cmd
}

// load reads --policy, else the policy the team's console uses (the team
// file's permissions.policy, or permissions.yaml beside it), else the
// built-in one: what it says is what the console decides.
func (f *permFlags) load(g *globals) (*permit.Policy, error) {
	if f.policy != "" {
		return permit.Load(f.policy)
	}
	if team, err := g.team(); err == nil && team.Permissions.Parsed != nil {
		return team.Permissions.Parsed, nil
	}
	return permit.Builtin()
}

// env is where the agent works: --workdir, else the agent's dir in the
// team file, else the current directory.
func (f *permFlags) env(g *globals) (permit.Env, error) {
	home, _ := os.UserHomeDir()
	dir := f.workdir
	var own []string
	environ := os.Environ() // the agent's is the console's, and its entry's
	if team, err := g.team(); err == nil {
		own = team.OwnFiles()
		for _, a := range team.Agents {
			if a.Name == f.agent {
				for k, v := range a.Env {
					environ = append(environ, k+"="+v)
				}
			}
		}
	}
	if dir == "" && f.agent != "" {
		team, err := g.team()
		if err != nil {
			return permit.Env{}, fmt.Errorf("--agent %s: %w; or pass --workdir DIR", f.agent, err)
		}
		var names []string
		for _, a := range team.Agents {
			if a.Name == f.agent {
				dir = a.Dir
			}
			names = append(names, a.Name)
		}
		if dir == "" {
			return permit.Env{}, fmt.Errorf("--agent %s: no such agent in %s (agents: %s); or pass --workdir DIR", f.agent, g.config, strings.Join(names, ", "))
		}
	}
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return permit.Env{}, err
	}
	// The git the policy runs is found on PATH, where an agent may have
	// put its own (~/.local/bin): it runs as an agent's would, with every
	// console's files and this program protected (the seventh red team's
	// git replaced the teamlead program through the human's check).
	protect := control.Protected(g.state, own)
	return permit.Env{Workdir: abs, Home: home, FS: permit.OSFS{Isolate: func(cmd *exec.Cmd) { agents.Isolate(cmd, protect...) }}, Protected: own,
		GoModCache: permit.GoModCacheOf(os.Getenv), Environ: environ}, nil
}

func printDecision(w io.Writer, d permit.Decision, agent string, env permit.Env) {
	if agent == "" {
		agent = "(any)"
	}
	fmt.Fprintf(w, "action:   %s\n", d.Action)
	fmt.Fprintf(w, "agent:    %s, working in %s\n", agent, env.Workdir)
	fmt.Fprintf(w, "decision: %s\n", d.Decide)
	fmt.Fprintf(w, "rule:     %s\n", d.Rule)
	fmt.Fprintf(w, "risk:     %s\n", d.Risk)
	fmt.Fprintf(w, "why:      %s\n", d.Why)
	if len(d.Floor) > 0 {
		fmt.Fprintf(w, "floor:    %s\n", strings.Join(d.Floor, ", "))
	}
	if len(d.Parts) == 0 {
		return
	}
	fmt.Fprintln(w, "parts:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for i, p := range d.Parts {
		text := strings.TrimSuffix(strings.TrimPrefix(p.Action, "Bash("), ")")
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\n", report.Cells(i+1, p.Decide, p.Risk, clipLine(text), p.Rule)...)
	}
	tw.Flush()
}

func printRules(w io.Writer, p *permit.Policy, agent string) {
	src := p.File
	if src == permit.BuiltinName {
		src += " (built in)"
	}
	fmt.Fprintf(w, "policy: %s\n", src)
	who := "every agent"
	if agent != "" {
		who = agent
	}
	fmt.Fprintf(w, "rules for %s, in the order they are checked (the first that matches decides):\n", who)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for i, e := range p.Effective(agent) {
		scope := ""
		if e.Paths == permit.PathsWorkdir {
			scope = "[workdir]"
		}
		owner := ""
		if e.Agent != "" {
			owner = "(" + e.Agent + ")"
		}
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s:%d\t%s\t%s\n", report.Cells(i+1, e.Decide, e.Rule.Text, scope, e.File, e.Line, owner, e.Why)...)
	}
	fmt.Fprintf(tw, "  -\t%s\t(no rule matches)\t\t%s:%d\t\t\n", report.Cells(p.Default, p.File, p.DefaultLine)...)
	tw.Flush()
	if agent == "" && len(p.Agents) > 0 {
		fmt.Fprintf(w, "agents with rules of their own (checked before these; see --agent): %s\n", strings.Join(p.AgentNames(), ", "))
	}
	fmt.Fprintln(w, "floor (built in: no rule can allow these; at best they are asked, a deny rule still denies):")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, e := range permit.Floor() {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", report.Cells(e.ID, e.Risk, e.Reason)...)
	}
	tw.Flush()
}

// clipLine shows s on one line of at most 60 characters: line breaks as ⏎,
// the rest cut with "...".
func clipLine(s string) string {
	r := []rune(strings.ReplaceAll(s, "\n", "⏎"))
	if len(r) > 60 {
		return string(r[:57]) + "..."
	}
	return string(r)
}

// decisionJSON is a decision as JSON for scripts.
func decisionJSON(d permit.Decision) map[string]any {
	v := map[string]any{"action": d.Action, "decision": d.Decide.String(), "risk": d.Risk.String(),
		"rule": d.Rule.Text, "where": d.Rule.Where(), "why": d.Why}
	switch d.Rule.Kind {
	case permit.ByFloor:
		v["by"] = "floor"
	case permit.ByDefault:
		v["by"] = "default"
	default:
		v["by"] = "rule"
	}
	if d.Rule.Agent != "" {
		v["agent_rule"] = d.Rule.Agent
	}
	if len(d.Floor) > 0 {
		v["floor"] = d.Floor
	}
	if len(d.Parts) > 0 {
		parts := make([]map[string]any, len(d.Parts))
		for i, p := range d.Parts {
			parts[i] = decisionJSON(p)
		}
		v["parts"] = parts
	}
	return v
}
